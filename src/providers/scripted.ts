/**
 * A provider that plays recorded model replies in order, for tests, demos and replays. It
 * streams each reply in small chunks, so callers exercise the same streaming path as with a
 * real server, and cuts a reply at the request's first stop string as servers do.
 *
 * Script files. The primary format is JSON:
 *
 *     { "version": 1, "replies": ["first reply", "second reply"] }
 *
 * A file ending in `.md` or `.txt` may instead hold the replies as plain text separated by
 * lines that read exactly `--- reply ---` (the text before the first separator is the first
 * reply; the line break that ends a reply's last line is not part of it).
 */
import { readFile as fsReadFile } from "node:fs/promises";
import { ApplicationError } from "../errors.js";
import { cancelledError } from "./retry.js";
import { cutAtStop } from "./stop.js";
import { estimateMessageTokens, estimateTokens } from "./tokens.js";
import type { ModelEvent, ModelProvider, ModelRequest } from "./types.js";

export interface ScriptedProviderOptions {
  replies: readonly string[];
  /** Characters per streamed chunk; default 16. */
  chunkSize?: number;
  /** The model name it reports; default `scripted`. */
  model?: string;
  /** Where the replies came from, for messages. */
  origin?: string;
}

export class ScriptedProvider implements ModelProvider {
  readonly name = "scripted";
  readonly api = "scripted" as const;
  readonly model: string;
  private readonly replies: readonly string[];
  private readonly chunkSize: number;
  private readonly origin: string;
  private played = 0;

  constructor(options: ScriptedProviderOptions) {
    this.replies = options.replies;
    this.chunkSize = Math.max(1, options.chunkSize ?? 16);
    this.model = options.model ?? "scripted";
    this.origin = options.origin ?? "the script";
  }

  /** How many replies are left to play. */
  get remaining(): number {
    return this.replies.length - this.played;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const { signal } = request;
    if (signal?.aborted) throw cancelledError();
    const reply = this.replies[this.played];
    if (reply === undefined) {
      throw new ApplicationError(
        "provider_error",
        `${this.origin} has no reply left: all ${this.replies.length} recorded replies were played and the model was asked for one more.`,
        "Add a reply to the script for this turn, or end the session where the script ends.",
      );
    }
    this.played++;
    const { text } = cutAtStop(reply, request.stop);
    const characters = Array.from(text);
    for (let start = 0; start < characters.length; start += this.chunkSize) {
      if (signal?.aborted) throw cancelledError();
      yield { type: "text-delta", text: characters.slice(start, start + this.chunkSize).join("") };
    }
    const inputTokens = await estimateMessageTokens(request.messages);
    yield { type: "usage", inputTokens, outputTokens: await estimateTokens(text), estimated: true };
    yield { type: "finish", reason: "stop" };
  }
}

export const replySeparator = "--- reply ---";

/** Reads a script file's replies (see the file comment for the formats). */
export async function loadScript(path: string, readFile: (path: string) => Promise<string> = (file) => fsReadFile(file, "utf8")): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ApplicationError("not_found", `The reply script ${path} does not exist.`, "Pass --script with the path of an existing script file.");
    }
    throw new ApplicationError("provider_error", `Could not read the reply script ${path}: ${(error as Error).message}.`);
  }
  return /\.(md|txt)$/i.test(path) ? parseTextScript(text) : parseJsonScript(text, path);
}

export function parseTextScript(text: string): string[] {
  // The line break before a separator (or at the end of the file) ends a line, not the reply.
  return text
    .replace(/\r\n/g, "\n")
    .split(/^--- reply ---[ \t]*(?:\n|$)/m)
    .map((reply) => reply.replace(/\n$/, ""));
}

function parseJsonScript(text: string, path: string): string[] {
  const format = 'A script is JSON: { "version": 1, "replies": ["first reply", "second reply"] }.';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApplicationError("corrupt_file", `The reply script ${path} is not valid JSON: ${(error as Error).message}.`, format);
  }
  const script = value as { version?: unknown; replies?: unknown };
  if (script?.version !== 1) {
    throw new ApplicationError("corrupt_file", `The reply script ${path} has version ${JSON.stringify(script?.version)}; clio reads version 1.`, format);
  }
  if (!Array.isArray(script.replies) || !script.replies.every((reply) => typeof reply === "string")) {
    throw new ApplicationError("corrupt_file", `The reply script ${path} needs "replies": an array of strings.`, format);
  }
  return script.replies;
}
