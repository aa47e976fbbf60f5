/**
 * All terminal styling lives under src/ui. Colour follows the terminal: off for NO_COLOR,
 * for output that is not a terminal, and with `--no-color`.
 */
import { Chalk, type ChalkInstance } from "chalk";

export function createStyle(stream: NodeJS.WriteStream | { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): ChalkInstance {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "";
  const level = noColor ? 0 : forced || stream.isTTY ? 1 : 0;
  return new Chalk({ level });
}
