/**
 * node:crypto, loaded the first time a caller needs it. Loading it costs a fresh process about
 * 2.5 ms, and most runs never do: a replay of reads, a one-off search or `clio parse` names no
 * temporary file, takes no lock aside and hashes nothing.
 */
import { createRequire } from "node:module";

let loaded: typeof import("node:crypto") | undefined;

/** The node:crypto module (loaded on the first call). */
export function nodeCrypto(): typeof import("node:crypto") {
  loaded ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return loaded;
}

/** `bytes` random bytes as hexadecimal digits: names no other process picks (temporary files, nonces). */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString("hex");
}
