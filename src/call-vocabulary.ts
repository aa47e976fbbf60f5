/**
 * The vocabulary the grammar's dialect layer recognises (grammar/dialects/vocabulary.ts), made
 * from the registered protocols: their actions and parameter kinds, and the other agents' tool
 * names each protocol declares it answers to. Made once per registry.
 */
import { CallVocabulary, type CallVocabularyData } from "../grammar/dialects/vocabulary.js";
import type { ProtocolRegistry } from "./registry.js";

const made = new WeakMap<ProtocolRegistry, CallVocabulary>();

export function callVocabularyOf(registry: ProtocolRegistry): CallVocabulary {
  let vocabulary = made.get(registry);
  if (vocabulary) return vocabulary;
  const data: CallVocabularyData = { protocols: [], aliases: {} };
  for (const protocol of registry.all()) {
    const actions: CallVocabularyData["protocols"][number]["actions"] = {};
    for (const [name, action] of Object.entries(protocol.actions)) {
      actions[name] = { parameters: Object.fromEntries(Object.entries(action.parameters).map(([key, definition]) => [key, definition.kind])) };
    }
    data.protocols.push({ name: protocol.name, actions });
    for (const [tool, alias] of Object.entries(protocol.aliases ?? {})) {
      const entry: CallVocabularyData["aliases"][string] = { protocol: protocol.name, action: alias.action };
      if (alias.parameters) entry.parameters = alias.parameters;
      if (alias.fixed) entry.fixed = alias.fixed;
      if (alias.ignore) entry.ignore = alias.ignore;
      data.aliases[tool] ??= entry;
    }
  }
  vocabulary = new CallVocabulary(data);
  made.set(registry, vocabulary);
  return vocabulary;
}
