/**
 * MEMORY — notes that last across sessions: store a value under a key (with tags and
 * metadata) in the project's memory (`.clio/memory.json`) or the global one
 * (`$CLIO_HOME/memory.json`), then retrieve, search, list or forget it. Concurrent clio
 * processes lose nothing: every write is locked, merged and atomic.
 */
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { defineAction, defineProtocol, parameter, type ProtocolEnvironment } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import { ProtocolError } from "./contract/errors.js";
import type { MemoryEntry, MemoryStore } from "../tools/memory/store.js";
import { plural } from "../tools/format.js";

/** The memory store, loaded on the first MEMORY use rather than at start-up. */
const loadMemoryTools = loadOnce(() => import("../tools/memory/store.js"));

const key = parameter.text("The memory's name, e.g. test-command or style/naming");
const scope = parameter.choice("project (this workspace, the default) or global (every workspace)", ["project", "global"] as const);

const metadataJson = parameter.json('A JSON object of extra fields, e.g. {"source":"README.md"}', z.record(z.unknown(), { invalid_type_error: "expected a JSON object" }));
const metadata = { ...metadataJson, schema: metadataJson.schema.optional() };

/** Most memories a list shows (all are in its data). */
const LIST_LIMIT = 100;

function preview(text: string, length = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= length ? line : `${line.slice(0, length - 1)}…`;
}

function headline(entry: MemoryEntry): string {
  const tags = entry.tags.length === 0 ? "" : ` [${entry.tags.join(", ")}]`;
  return `${entry.key}${tags} (${entry.scope}, updated ${entry.updatedAt})`;
}

/** The store for an environment: the workspace's project file and CLIO_HOME's (or ~/.clio's) global one. */
export async function memoryStoreFor(environment: ProtocolEnvironment): Promise<MemoryStore> {
  const { MemoryStore } = await loadMemoryTools();
  const home = environment.env.CLIO_HOME !== undefined && environment.env.CLIO_HOME !== "" ? environment.env.CLIO_HOME : path.join(os.homedir(), ".clio");
  return new MemoryStore({ workspaceRoot: environment.workspace.root, home, now: () => environment.now() });
}

export const memoryProtocol = defineProtocol<MemoryStore>({
  name: "MEMORY",
  summary: "Remember facts across sessions (project or global): store, retrieve, search, list and forget notes by key, with tags and metadata.",
  setup: (environment) => memoryStoreFor(environment),
  /** The memories most relevant to the person's prompt go into the system prompt. */
  async promptContext(store, prompt, tokenBudget) {
    const { relevantMemories } = await loadMemoryTools();
    const { text } = await relevantMemories(store, prompt, tokenBudget);
    return text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.replace(/^- /, ""));
  },
  actions: {
    store: defineAction({
      summary: "Remember value under key (replacing an earlier value); tags are comma-separated; metadata is a JSON object.",
      permission: "write",
      parameters: {
        key,
        value: parameter.text("What to remember"),
        tags: parameter.optionalText('Comma-separated labels, e.g. "build,ci"'),
        metadata,
        scope,
      },
      describe: (args) => `Remembering ${args.key}${args.scope === "global" ? " (global)" : ""}`,
      async handler(args, { state }) {
        const { entry, created } = await state.store({ key: args.key, value: args.value, tags: args.tags, metadata: args.metadata, scope: args.scope });
        return {
          output: `${created ? "Stored" : "Updated"} ${entry.scope} memory ${entry.key}${entry.tags.length === 0 ? "" : ` [${entry.tags.join(", ")}]`} (${plural(entry.value.length, "character")}).`,
          description: `${created ? "Remembered" : "Updated"} ${entry.key} (${entry.scope})`,
          data: entry,
        };
      },
    }),

    retrieve: defineAction({
      summary: "Show the memory stored under key (project first, then global).",
      permission: "read",
      parameters: { key, scope },
      describe: (args) => `Recalling ${args.key}`,
      async handler(args, { state }) {
        const entry = await state.retrieve(args.key, args.scope);
        if (entry === undefined) {
          const close = (await state.search(args.key, { limit: 5 }).catch(() => [])).map((hit) => hit.entry.key);
          throw new ProtocolError(
            "not_found",
            `No memory is stored under ${args.key}${args.scope === undefined ? "" : ` in the ${args.scope} scope`}.`,
            close.length === 0 ? "Use MEMORY list to see the stored keys." : `Close keys: ${close.join(", ")}.`,
          );
        }
        const metadata = Object.keys(entry.metadata).length === 0 ? [] : [`metadata: ${JSON.stringify(entry.metadata)}`];
        return { output: [headline(entry), entry.value, ...metadata].join("\n"), description: `Recalled ${entry.key} (${entry.scope})`, data: entry };
      },
    }),

    search: defineAction({
      summary: "Find memories by words, ranked by key, tags and value.",
      permission: "read",
      parameters: {
        query: parameter.text("Words to look for"),
        scope,
        tag: parameter.optionalText("Only memories with this tag"),
        limit: parameter.integer("Most results (default 10)", { min: 1, max: 100 }),
      },
      describe: (args) => `Searching memories for ${JSON.stringify(args.query.slice(0, 60))}`,
      async handler(args, { state }) {
        const hits = await state.search(args.query, { scope: args.scope, tag: args.tag, limit: args.limit });
        const output =
          hits.length === 0
            ? `No memory matches ${JSON.stringify(args.query.slice(0, 80))}.`
            : hits.map((hit, position) => `${position + 1}. ${headline(hit.entry)}: ${preview(hit.entry.value)}`).join("\n");
        return { output, description: `Found ${plural(hits.length, "memory", "memories")} for ${JSON.stringify(args.query.slice(0, 40))}`, data: hits };
      },
    }),

    forget: defineAction({
      summary: "Delete the memory stored under key (project first, then global, unless scope is given).",
      permission: "write",
      parameters: { key, scope },
      describe: (args) => `Forgetting ${args.key}`,
      async handler(args, { state }) {
        const result = await state.forget(args.key, args.scope);
        if (!result.removed) throw new ProtocolError("not_found", `No memory is stored under ${args.key}, so nothing was forgotten.`, "Use MEMORY list to see the stored keys.");
        return { output: `Forgot ${args.key} (${result.scope}).`, description: `Forgot ${args.key}`, data: result };
      },
    }),

    list: defineAction({
      summary: "List memories, most recent first; scope and tag narrow the list.",
      permission: "read",
      parameters: { scope, tag: parameter.optionalText("Only memories with this tag") },
      describe: (args) => `Listing memories${args.scope === undefined ? "" : ` (${args.scope})`}${args.tag === undefined ? "" : ` tagged ${args.tag}`}`,
      async handler(args, { state }) {
        const entries = await state.list({ scope: args.scope, tag: args.tag });
        const shown = entries.slice(0, LIST_LIMIT).map((entry) => `${headline(entry)}: ${preview(entry.value, 100)}`);
        if (entries.length > LIST_LIMIT)
          shown.push(`(… ${plural(entries.length - LIST_LIMIT, "more memory", "more memories")}; narrow the list with tag or scope, or use search.)`);
        const output = entries.length === 0 ? "No memories stored yet." : shown.join("\n");
        return { output, description: `Listed ${plural(entries.length, "memory", "memories")}`, data: entries };
      },
    }),
  },
});
