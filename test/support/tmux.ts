/** A tmux server of its own for a test: panes started with a command, keys sent, the screen read. */
import { execFileSync } from "node:child_process";
import path from "node:path";

/**
 * The shell line that starts the bundled chat in `workspace` against a test model server, asking
 * before changes, with clio's home and sessions in `home`; it prints CLIO-EXITED-<code> when the
 * chat ends and keeps the pane open.
 */
export function chatCommandLine(options: { workspace: string; home: string; baseURL: string; model: string }): string {
  const root = path.resolve(import.meta.dirname, "../..");
  return [
    `cd ${JSON.stringify(options.workspace)} &&`,
    `env NO_COLOR=1 CLIO_HOME=${JSON.stringify(options.home)} HOME=${JSON.stringify(options.home)}`,
    `node ${JSON.stringify(path.join(root, "dist/clio.cjs"))}`,
    `--base-url ${options.baseURL} --model ${options.model} --api-key test-key --context-window 1000000`,
    `--session-dir ${JSON.stringify(path.join(options.home, "sessions"))} --permission-mode ask;`,
    "echo CLIO-EXITED-$?; sleep 30",
  ].join(" ");
}

export function tmuxServer(socket: string) {
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const screen = (pane: string): string => tmux("capture-pane", "-p", "-J", "-S", "-300", "-t", pane);
  return {
    start(pane: string, command: string): void {
      tmux("new-session", "-d", "-s", pane, "-x", "160", "-y", "50", command);
    },
    screen,
    /** Types `text` and presses Enter. */
    type(pane: string, text: string): void {
      tmux("send-keys", "-t", pane, "-l", text);
      tmux("send-keys", "-t", pane, "Enter");
    },
    async waitFor(pane: string, text: string | RegExp, timeoutMs = 15_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = screen(pane);
        if (typeof text === "string" ? shown.includes(text) : text.test(shown)) return shown;
        if (Date.now() > deadline) throw new Error(`The screen never showed ${String(text)}. It shows:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop(): void {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
    },
  };
}
