/**
 * The system prompt's protocol sections: a protocol's name and summary, then one line per
 * action with its parameters and the first sentence of its summary. clio's own protocols are
 * listed whole. Protocols from outside (MCP servers and shell protocols, `fromOutside`) share one
 * budget, so ten servers with fifty tools each cannot crowd out the rest of the prompt: when
 * they do not fit, each gets a fair share (a protocol that needs less than an equal share keeps
 * all it needs, and what it leaves goes to the others), a protocol over its share has its
 * descriptions shortened, then lists as many actions as fit and names the rest, always pointing
 * to `clio protocols NAME`.
 */
import type { ActionDefinition, ProtocolDefinition } from "../../protocols/contract/protocol.js";

/** About how many tokens the action lines of every protocol from outside may take together. */
export const OUTSIDE_PROMPT_TOKENS = 1_500;
/**
 * Characters per token assumed for the budget. Action lines are names, parameters and prose;
 * tool names such as `get_file_contents` cost more tokens than prose (about 3.5 characters per
 * token with the GPT-4o tokenizer), so the count is on the safe side of that.
 */
const CHARACTERS_PER_TOKEN = 3.4;
/** A description cut to this many characters when a protocol is over its share. */
const SHORT_DESCRIPTION = 60;
/** At most this part of a share goes to naming the actions left out. */
const NAMES_SHARE = 1 / 3;

/** One protocol as the prompt shows it: its actions, already filtered to those offered. */
export interface PromptProtocol {
  protocol: ProtocolDefinition;
  actions: Array<[string, ActionDefinition]>;
}

/** The section of each protocol, in the order given. */
export function protocolSections(protocols: PromptProtocol[], outsideTokens = OUTSIDE_PROMPT_TOKENS): string[] {
  const outside = protocols.filter(({ protocol }) => protocol.fromOutside === true);
  const shares = fairShares(
    outside.map((entry) => fullSection(entry).length),
    Math.floor(outsideTokens * CHARACTERS_PER_TOKEN),
  );
  const shareOf = new Map(outside.map((entry, index) => [entry, shares[index]!]));
  return protocols.map((entry) => {
    const share = shareOf.get(entry);
    return share === undefined ? fullSection(entry) : sectionWithin(entry, share);
  });
}

/** Splits `budget` among needs: each gets its need or an equal part of what is left, whichever is less. */
export function fairShares(needs: number[], budget: number): number[] {
  const shares = needs.map(() => 0);
  const order = needs.map((need, index) => ({ need, index })).sort((left, right) => left.need - right.need);
  let left = budget;
  for (const [position, { need, index }] of order.entries()) {
    const share = Math.min(need, Math.floor(left / (order.length - position)));
    shares[index] = share;
    left -= share;
  }
  return shares;
}

function header({ protocol }: PromptProtocol): string {
  return `${protocol.name} — ${protocol.summary}`;
}

function fullSection(entry: PromptProtocol): string {
  return [header(entry), ...entry.actions.map(([name, action]) => actionLine(name, action))].join("\n");
}

/** The section in at most about `share` characters (never less than its header and a line naming the actions). */
function sectionWithin(entry: PromptProtocol, share: number): string {
  const full = fullSection(entry);
  if (full.length <= share) return full;
  const pointer = `clio protocols ${entry.protocol.name} shows them all`;
  const lines = entry.actions.map(([name, action]) => actionLine(name, action, SHORT_DESCRIPTION));
  const shortened = [`${header(entry)} (descriptions shortened; ${pointer})`, ...lines].join("\n");
  if (shortened.length <= share) return shortened;
  const kept: string[] = [header(entry)];
  let used = header(entry).length;
  const listedUpTo = share - Math.max(120, Math.floor(share * NAMES_SHARE));
  let index = 0;
  for (; index < lines.length && used + 1 + lines[index]!.length <= listedUpTo; index++) {
    kept.push(lines[index]!);
    used += 1 + lines[index]!.length;
  }
  const rest = entry.actions.slice(index).map(([name]) => name);
  kept.push(moreLine(rest, pointer, share - used - 1));
  return kept.join("\n");
}

/** `  (12 more actions: a, b, …; clio protocols FS shows them all)` in about `room` characters. */
function moreLine(names: string[], pointer: string, room: number): string {
  const frame = (list: string) => `  (${names.length} more action${names.length === 1 ? "" : "s"}: ${list}; ${pointer})`;
  let shown = names.length;
  while (shown > 0 && frame(listOf(names, shown)).length > room) shown--;
  return frame(listOf(names, Math.max(shown, Math.min(1, names.length))));
}

function listOf(names: string[], shown: number): string {
  return shown >= names.length ? names.join(", ") : `${names.slice(0, shown).join(", ")}, …`;
}

/** `  read path offset? limit? — Read a file with line numbers.` */
export function actionLine(name: string, action: ActionDefinition, descriptionLimit = 200): string {
  const parameters = Object.entries(action.parameters).map(([key, definition]) => {
    const optional = definition.schema.safeParse(undefined).success;
    return `${key}${optional ? "?" : ""}`;
  });
  return `  ${[name, ...parameters].join(" ")} — ${firstSentence(action.summary, descriptionLimit)}`;
}

/**
 * A summary's first sentence, at most `limit` characters: the prompt stays small for local
 * models, while the errors and `clio protocols` carry the details.
 */
function firstSentence(summary: string, limit: number): string {
  const withoutAsides = summary.replace(/\s*\([^()]*\)/g, "").trim();
  const [first = withoutAsides] = withoutAsides.split(/(?<=[.;])\s|\n/);
  const sentence = first.replace(/[.;]$/, "");
  return sentence.length <= limit ? sentence : `${sentence.slice(0, limit - 1)}…`;
}
