/** `clio replay --from-session ID`: re-run a session's commands and compare with what it recorded. */
import type { ReplayCommandOptions } from "./replay-command.js";

export async function replaySessionCommand(_id: string, _options: ReplayCommandOptions): Promise<number> {
  process.stderr.write("clio replay: --from-session is not available yet.\n");
  return 2;
}
