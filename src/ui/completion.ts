/** Tab completion in the chat: paths after `@` (from the workspace), and slash command names. */
import { readdirSync } from "node:fs";
import path from "node:path";

const MOST = 200;

/** A readline completer for `root`: `@src/ma` → `@src/main.ts`, `/un` → `/undo`. */
export function chatCompleter(root: string, commands: readonly string[]): (line: string) => [string[], string] {
  return (line) => {
    if (/^\/\S*$/.test(line)) return [commands.filter((command) => command.startsWith(line)), line];
    const token = /(?:^|\s)(@[^\s@]*)$/.exec(line)?.[1];
    if (token === undefined) return [[], line];
    const typed = token.slice(1);
    const folder = typed.includes("/") ? typed.slice(0, typed.lastIndexOf("/") + 1) : "";
    const absolute = path.resolve(root, folder);
    if (absolute !== root && !absolute.startsWith(root + path.sep)) return [[], token];
    try {
      const entries = readdirSync(absolute, { withFileTypes: true })
        .filter((entry) => entry.name !== ".git" && `${folder}${entry.name}`.startsWith(typed))
        .slice(0, MOST)
        .map((entry) => `@${folder}${entry.name}${entry.isDirectory() ? "/" : ""}`)
        .sort();
      return [entries, token];
    } catch {
      return [[], token];
    }
  };
}
