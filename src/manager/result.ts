/**
 * Command results as data, and as the text the model reads back inside a nonce envelope
 * (../shared/protocol-language.md §6) that no content can close early.
 */
import type { ResultError } from "../errors.js";
import type { PermissionClass } from "../../protocols/contract/protocol.js";
import { randomHex } from "../../tools/node-crypto.js";

export interface CommandResult {
  /** Sequence number within the manager, from 1. */
  id: number;
  ok: boolean;
  /** Canonical protocol name, or the name as written when it is unknown. */
  protocol: string;
  action: string | null;
  /** The arguments decoded by their kinds (bytes as base64), when the command got past checking. */
  args?: Record<string, string>;
  permissionClass: PermissionClass | null;
  /** The one line a person reads ("Read src/main.c (247 lines)"). */
  description: string;
  /** The text the model reads (cut at the output limit when `truncated`). */
  output: string;
  error?: ResultError;
  durationMs: number;
  truncated: boolean;
  /** Where the whole output was kept when it was cut (relative to the workspace). */
  fullOutputPath?: string;
  /** Structured data from the handler, for JSON output and expectations. */
  data?: unknown;
  /** Lines the person sees under the result line (the handler's `display`). */
  display?: string[];
  /** Where the command stood in the text it came from. */
  line?: number;
  column?: number;
}

/** A fresh nonce for one turn's envelopes: short, random, and absent from every result body. */
export function createNonce(bodies: string[] = []): string {
  for (;;) {
    const nonce = randomHex(4);
    if (!bodies.some((body) => body.includes(nonce))) return nonce;
  }
}

/** The label in an envelope's opening line: `FILE_OP.read`, or the protocol alone. */
export function resultLabel(result: Pick<CommandResult, "protocol" | "action">): string {
  return result.action ? `${result.protocol}.${result.action}` : result.protocol;
}

/** The body the model reads: the output, or what failed and how to fix it. */
export function resultBody(result: CommandResult): string {
  if (result.ok) return result.output;
  const lines = [result.error?.message ?? "The command failed."];
  if (result.error?.hint) lines.push(`How to fix: ${result.error.hint}`);
  if (result.output && result.output !== result.error?.message) lines.push("", result.output);
  return lines.join("\n");
}

/**
 * The one place the result envelope is spelled: the writer below, the fabrication guard that cuts
 * a reply where a model starts writing one, the stop sequence asked of servers, and the checker
 * that refuses a command named RESULT all take it from here.
 */
export const RESULT_ENVELOPE_NAME = "RESULT";

/** The text that opens and the text that closes an envelope, up to the nonce. */
export const RESULT_MARKERS = { opening: `[${RESULT_ENVELOPE_NAME} `, closing: `[/${RESULT_ENVELOPE_NAME} ` } as const;

/** Writes results in envelopes sharing one nonce that occurs in none of their bodies. */
export function formatResultsForModel(results: CommandResult[]): string {
  const bodies = results.map(resultBody);
  const nonce = createNonce(bodies);
  return results
    .map((result, index) => {
      const status = result.ok ? "ok" : `error ${result.error?.code ?? "internal_error"}`;
      return `${RESULT_MARKERS.opening}${nonce} ${resultLabel(result)} ${status}]\n${bodies[index]}\n${RESULT_MARKERS.closing}${nonce}]`;
    })
    .join("\n\n");
}
