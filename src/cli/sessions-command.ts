/** `clio sessions list|show|delete|export`. */
import { ClioError } from "../../grammar/errors.js";
import { exportFormats, exportSession, SessionStore, type ExportFormat } from "../sessions/index.js";
import { createStyle } from "../ui/style.js";
import { loadChatConfig } from "./chat-setup.js";

export interface SessionsCommandOptions {
  sessionDir?: string;
  format?: string;
  all?: boolean;
}

export async function sessionsCommand(verb: string, id: string | undefined, options: SessionsCommandOptions): Promise<number> {
  const style = createStyle(process.stdout);
  try {
    const resolved = await loadChatConfig({ ...(options.sessionDir ? { sessionDir: options.sessionDir } : {}) }, process.env, process.cwd());
    const store = new SessionStore(resolved.config.sessionDir);
    if (verb === "list") {
      const listing = await store.list(options.all ? {} : { workspace: resolved.config.workspace });
      if (!listing.sessions.length) process.stdout.write(`No sessions${options.all ? "" : " for this workspace (--all lists every one)"}.\n`);
      for (const session of listing.sessions) {
        process.stdout.write(
          `${style.cyan(session.id)}  ${session.updatedAt.slice(0, 16).replace("T", " ")}  ${session.model}  ${session.messageCount} messages  ${session.title}\n`,
        );
      }
      for (const unreadable of listing.unreadable) {
        const text =
          unreadable.code === "corrupt_file"
            ? `${unreadable.file} could not be read (${unreadable.message}); delete it, or open it with clio -r to move it aside.`
            : unreadable.message;
        process.stderr.write(`${style.yellow("!")} ${text}\n`);
      }
      return 0;
    }
    if (!id) {
      process.stderr.write(`clio sessions ${verb}: give the session's id (a unique prefix is enough); clio sessions list shows them.\n`);
      return 2;
    }
    if (verb === "delete") {
      process.stdout.write(`Deleted ${await store.delete(id)}.\n`);
      return 0;
    }
    const format = (verb === "show" ? "markdown" : (options.format ?? "markdown")) as ExportFormat;
    if (!exportFormats.includes(format)) {
      process.stderr.write(`clio sessions export: --format is one of ${exportFormats.join(", ")}.\n`);
      return 2;
    }
    process.stdout.write(exportSession(await store.read(id), format));
    return 0;
  } catch (error) {
    if (!ClioError.isInstance(error)) throw error;
    process.stderr.write(`clio sessions: ${error.message}${error.hint ? `\n${error.hint}` : ""}\n`);
    return error.code === "not_found" ? 1 : 2;
  }
}
