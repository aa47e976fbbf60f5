/**
 * FILE_OP — reading, writing and organising files inside the workspace.
 * Every path goes through workspace confinement; writes are atomic and never touch `.git`
 * internals or clio's `.clio` state. Reads show lines as `  12│text` (line number, a `│`
 * gutter, then the line exactly); copy text after the gutter when writing `old` for replace.
 * Settings (`config.FILE_OP`): `readLimit` (bytes one read shows, default 16,000).
 */
import { defineAction, defineProtocol, parameter, type ActionContext, type ActionOutput, type PlannedChange, type ProtocolEnvironment } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import type { FileLedger, FileSystem, FileTools, ListEntry, ReadResult, SearchResult, SyncReads, WriteResult } from "../tools/files/index.js";
import { formatBytes, numberLines } from "../tools/files/text.js";
import { plural } from "../tools/format.js";

export interface FileOpOptions {
  /** The `fs.promises` seam the file tools use (tests replace single methods). */
  fileSystem?: FileSystem;
  /** The synchronous calls that read small files whole (tests replace single methods). */
  syncReads?: SyncReads;
}

const path = parameter.path("File or folder path relative to the workspace root");
/** The read action opens its path only through the file tools' confirmed open. */
const readPath = parameter.path("File or folder path relative to the workspace root", { opensConfirmed: true });
const folder = parameter.optionalPath('Folder relative to the workspace root (default ".")');
const target = parameter.path("Target path relative to the workspace root");
const overwrite = parameter.boolean("Replace an existing target file (default false)");
const recursive = parameter.boolean("Include folders and everything in them (default false)");

/**
 * Bytes one read shows (config `FILE_OP.readLimit`). The default keeps a read under the
 * manager's 20,000-character output cut, so FILE_OP's own "read on with offset=N" note stays
 * in view instead of the text being cut mid-way.
 */
export const DEFAULT_READ_LIMIT = 16_000;
const readLimit = (environment: ProtocolEnvironment): number => (environment.config.FILE_OP as { readLimit?: number } | undefined)?.readLimit ?? DEFAULT_READ_LIMIT;

const changeSummary = (result: WriteResult) => (result.created ? `+${result.added}` : `+${result.added} −${result.removed}`);

function listLine(entry: ListEntry): string {
  return entry.linkTarget === undefined ? entry.path : `${entry.path} -> ${entry.linkTarget}`;
}

function searchOutput(result: SearchResult, content: string | undefined): string {
  const notes: string[] = [];
  if (result.truncated) notes.push(`(Stopped at the limit; narrow the pattern${content === undefined ? "" : " or content"}, or give a folder in path.)`);
  if (result.skipped.binary + result.skipped.large > 0) {
    notes.push(`(Skipped ${plural(result.skipped.binary, "binary file")} and ${plural(result.skipped.large, "file")} over 4 MB.)`);
  }
  const where = result.folder === "." ? "the workspace" : result.folder;
  let body: string;
  if (content === undefined) {
    body = result.files.length === 0 ? `No files match ${result.glob} in ${where}.` : result.files.join("\n");
  } else {
    const hits = result.hits ?? [];
    body = hits.length === 0 ? `No lines match ${content} in files matching ${result.glob} in ${where}.` : hits.map((hit) => `${hit.path}:${hit.line}: ${hit.text}`).join("\n");
  }
  return [body, ...notes].join("\n");
}

/**
 * A read's data: the result without its lines (the output shows them), with their count. Written
 * out field by field, in the result's order, rather than spread: a spread per read was the read
 * handler's largest cost; `satisfies` keeps every field of ReadResult listed.
 */
function readData(result: ReadResult) {
  const { relative, size, firstLine, totalLines, complete, note } = result;
  return { relative, size, lines: undefined, firstLine, totalLines, complete, note, lineCount: result.lines.length } satisfies Record<keyof ReadResult | "lineCount", unknown>;
}

/** The description of a read that shows part of its file: which lines, of how many (or of how many bytes). */
function partDescription(result: ReadResult): string {
  const lastLine = result.firstLine + result.lines.length - 1;
  const of = result.totalLines === undefined ? formatBytes(result.size) : `${plural(result.totalLines, "line")}`;
  return `Read ${result.relative} lines ${result.firstLine}–${lastLine} of ${of}`;
}

/** What a read shows: its lines numbered, and the note on how to read on. */
function readOutput(result: ReadResult): ActionOutput {
  const shown = result.lines.length === 0 ? "(empty file)" : numberLines(result.lines, result.firstLine);
  const description = result.complete ? `Read ${result.relative} (${plural(result.totalLines ?? 0, "line")})` : partDescription(result);
  return { output: result.note === undefined ? shown : `${shown}\n(${result.note})`, description, data: readData(result) };
}

const loadFileTools = loadOnce(() => import("../tools/files/index.js"));

/** Makes the FILE_OP protocol over the given file-system seam. */
export function createFileOpProtocol(options: FileOpOptions = {}) {
  // The file tools load on the first FILE_OP command, not at start-up.
  // Each command's tools do their I/O on the paths its permission check resolved.
  let loaded: Awaited<ReturnType<typeof loadFileTools>> | undefined;
  const toolsOf = (module: NonNullable<typeof loaded>, { environment, state, checkedPaths }: ActionContext<FileLedger | undefined>): FileTools =>
    new module.FileTools(environment.workspace, options.fileSystem, options.syncReads, state, checkedPaths);
  // Once loaded, the module is taken as it is: the tools come at once, not as a promise.
  const tools = (context: ActionContext<FileLedger | undefined>): FileTools | Promise<FileTools> =>
    loaded === undefined ? loadFileTools().then((module) => toolsOf((loaded = module), context)) : toolsOf(loaded, context);

  const plan = async (
    action: "write" | "replace" | "delete" | "move" | "copy",
    args: Parameters<FileTools["plan"]>[1],
    context: ActionContext<FileLedger>,
  ): Promise<PlannedChange[]> => (await tools(context)).plan(action, args);

  return defineProtocol<FileLedger>({
    name: "FILE_OP",
    summary: "Read, write, edit, list, search, delete, move, copy and inspect files in the workspace.",
    // What the model last saw of each file, so a write never overwrites a change it has not read.
    setup: async () => new (await loadFileTools()).FileLedger(),
    aliases: {
      read_file: { action: "read", parameters: { file_path: "path", absolute_path: "path", filename: "path", start_line: "offset", line_count: "limit" } },
      view: { action: "read", parameters: { file_path: "path" } },
      write_to_file: { action: "write", parameters: { file_path: "path", contents: "content", file_text: "content", text: "content" }, ignore: ["line_count"] },
      write_file: { action: "write", parameters: { file_path: "path", contents: "content", file_text: "content", text: "content" } },
      create_file: { action: "write", parameters: { file_path: "path", contents: "content", file_text: "content", text: "content" } },
      edit_file: { action: "replace", parameters: { file_path: "path", old_string: "old", new_string: "new", old_str: "old", new_str: "new", replace_all: "all" } },
      str_replace: { action: "replace", parameters: { file_path: "path", old_str: "old", new_str: "new" } },
      // Gemini CLI's edit tool.
      replace: { action: "replace", parameters: { file_path: "path", old_string: "old", new_string: "new" } },
      list_files: { action: "list", parameters: { dir_path: "path", directory: "path" } },
      list_dir: { action: "list", parameters: { dir_path: "path", directory: "path", relative_workspace_path: "path" } },
      list_directory: { action: "list", parameters: { dir_path: "path", directory: "path" } },
      search_files: { action: "search", parameters: { regex: "content", file_pattern: "pattern", directory: "path" }, fixed: { pattern: "*" } },
      grep_search: { action: "search", parameters: { query: "content", regex: "content", include_pattern: "pattern" }, fixed: { pattern: "*" } },
      // Gemini CLI's: a regular expression in `pattern`, the files to search in `include`; a glob of file names.
      search_file_content: { action: "search", parameters: { pattern: "content", include: "pattern", dir_path: "path" }, fixed: { pattern: "*" } },
      glob: { action: "search", parameters: { dir_path: "path" } },
      delete_file: { action: "delete", parameters: { file_path: "path", target_file: "path" } },
    },
    actions: {
      read: defineAction({
        summary: "Show a text file with line numbers (`  12│text`); offset and limit pick a window of lines; about 16 KB per read, with a note on how to read on.",
        permission: "read",
        parameters: {
          path: readPath,
          offset: parameter.integer("First line to show, 1-based (default 1)", { min: 1 }),
          limit: parameter.integer("How many lines to show (default: all that fit one read)", { min: 1 }),
        },
        describe: (args) => `Reading ${args.path}${args.offset === undefined ? "" : ` from line ${args.offset}`}`,
        handler(args, context) {
          const files = tools(context);
          const options = { offset: args.offset, limit: args.limit, maxBytes: readLimit(context.environment) };
          if (files instanceof Promise) return files.then((loaded) => loaded.read(args.path, options)).then(readOutput);
          // A small file's read comes at once (see FileTools.readAtOnceOrLater), and so does the output: no promise to wait for.
          const reading = files.readAtOnceOrLater(args.path, options);
          return reading instanceof Promise ? reading.then(readOutput) : readOutput(reading);
        },
      }),

      write: defineAction({
        summary: "Write a whole file (created with its folders, or replaced), atomically; reports lines added and removed.",
        permission: "write",
        parameters: { path, content: parameter.text("The file's complete new content") },
        describe: (args) => `Writing ${args.path}`,
        preview: (args, context) => plan("write", args, context),
        async handler(args, context) {
          const result = await (await tools(context)).write(args.path, args.content);
          const output = result.created
            ? `Created ${result.relative} (${plural(result.lines, "line")}, ${formatBytes(result.bytes)}).`
            : `Wrote ${result.relative}: +${result.added} −${result.removed} lines (now ${plural(result.lines, "line")}, ${formatBytes(result.bytes)}).`;
          return { output, description: `${result.created ? "Created" : "Wrote"} ${result.relative} (${changeSummary(result)})`, data: result };
        },
      }),

      replace: defineAction({
        summary: "Replace the exact text old with new in a file; old must match once unless all=true. A miss shows the closest lines.",
        permission: "write",
        parameters: {
          path,
          old: parameter.text("The exact text to find (whitespace and line breaks count)"),
          new: parameter.text("The text to put in its place"),
          all: parameter.boolean("Replace every match (default false: old must match exactly once)"),
        },
        describe: (args) => `Editing ${args.path}`,
        preview: (args, context) => plan("replace", args, context),
        async handler(args, context) {
          const result = await (await tools(context)).replace(args.path, args.old, args.new, args.all ?? false);
          const where = result.matchLines.length === 1 ? `at line ${result.matchLines[0]}` : `at lines ${result.matchLines.join(", ")}`;
          return {
            output: `Replaced ${plural(result.replacements, "match", "matches")} in ${result.relative} ${where}: +${result.added} −${result.removed} lines.`,
            description: `Edited ${result.relative} (${changeSummary(result)})`,
            data: result,
          };
        },
      }),

      list: defineAction({
        summary: 'List a folder (default "."), or its whole tree with recursive=true; folders end with /, .gitignore is respected, .git and .clio hidden.',
        permission: "read",
        parameters: { path: folder, recursive },
        describe: (args) => `Listing ${args.path ?? "."}${args.recursive ? " recursively" : ""}`,
        async handler(args, context) {
          const result = await (await tools(context)).list(args.path ?? ".", { recursive: args.recursive ?? false });
          const lines = result.entries.length === 0 ? ["(empty folder)"] : result.entries.map(listLine);
          if (result.ignoredFolder) lines.push(`(${result.relative} is ignored by .gitignore; its contents are listed anyway.)`);
          if (result.truncated) lines.push(`(Stopped at ${plural(result.entries.length, "entry", "entries")}; list a subfolder for more.)`);
          return {
            output: lines.join("\n"),
            description: `Listed ${result.relative} (${plural(result.entries.length, "entry", "entries")}${result.truncated ? ", truncated" : ""})`,
            data: result,
          };
        },
      }),

      search: defineAction({
        summary:
          "Find files by glob pattern (without / it matches at any depth) under path; with content (a regular expression, (?i) for any case) list matching lines as file:line: text.",
        permission: "read",
        parameters: {
          pattern: parameter.text('A glob of file names, e.g. "*.ts" or "src/**/*.test.ts"'),
          path: folder,
          content: parameter.optionalText("A regular expression to find in the files' lines (JavaScript syntax)"),
        },
        describe: (args) =>
          args.content === undefined ? `Searching for ${args.pattern} in ${args.path ?? "."}` : `Searching ${args.pattern} in ${args.path ?? "."} for ${args.content}`,
        async handler(args, context) {
          const result = await (await tools(context)).search(args.pattern, { folder: args.path, content: args.content });
          const description =
            args.content === undefined
              ? `Found ${plural(result.files.length, "file")} matching ${args.pattern}`
              : `Found ${plural(result.hits?.length ?? 0, "match", "matches")} for ${args.content} in ${plural(result.files.length, "file")}`;
          return { output: searchOutput(result, args.content), description, data: result };
        },
      }),

      delete: defineAction({
        summary: "Delete a file or link; a folder only with recursive=true. Never the workspace root, .git or .clio.",
        permission: "write",
        parameters: { path, recursive },
        describe: (args) => `Deleting ${args.path}`,
        preview: (args, context) => plan("delete", args, context),
        async handler(args, context) {
          const result = await (await tools(context)).remove(args.path, args.recursive ?? false);
          const what = result.kind === "directory" ? `folder with ${plural(result.files, "file")}` : result.kind;
          return { output: `Deleted ${result.relative} (${what}).`, description: `Deleted ${result.relative}`, data: result };
        },
      }),

      move: defineAction({
        summary: "Move or rename path to the new path to (folders created); an existing file at to is replaced only with overwrite=true.",
        permission: "write",
        parameters: { path, to: target, overwrite },
        describe: (args) => `Moving ${args.path} to ${args.to}`,
        preview: (args, context) => plan("move", args, context),
        async handler(args, context) {
          const result = await (await tools(context)).move(args.path, args.to, args.overwrite ?? false);
          const replaced = result.overwritten ? ` (replacing the old ${result.to})` : "";
          return { output: `Moved ${result.from} to ${result.to}${replaced}.`, description: `Moved ${result.from} to ${result.to}`, data: result };
        },
      }),

      copy: defineAction({
        summary: "Copy a file to the path to, or a folder with recursive=true; an existing file at to is replaced only with overwrite=true.",
        permission: "write",
        parameters: { path, to: target, recursive, overwrite },
        describe: (args) => `Copying ${args.path} to ${args.to}`,
        preview: (args, context) => plan("copy", args, context),
        async handler(args, context) {
          const result = await (await tools(context)).copy(args.path, args.to, { recursive: args.recursive ?? false, overwrite: args.overwrite ?? false });
          const replaced = result.overwritten ? ` (replacing the old ${result.to})` : "";
          return { output: `Copied ${result.from} to ${result.to}${replaced}.`, description: `Copied ${result.from} to ${result.to}`, data: result };
        },
      }),

      info: defineAction({
        summary: "Show a path's type, size, modification time, mode and (for text files) line count.",
        permission: "read",
        parameters: { path },
        describe: (args) => `Inspecting ${args.path}`,
        async handler(args, context) {
          const info = await (await tools(context)).info(args.path);
          const lines = [
            `path: ${info.relative}`,
            `type: ${info.type}${info.linkTarget === undefined ? "" : ` (-> ${info.linkTarget})`}`,
            `size: ${plural(info.size, "byte")} (${formatBytes(info.size)})`,
            `modified: ${info.modified}`,
            `mode: ${info.mode}`,
          ];
          if (info.lines !== undefined) lines.push(`lines: ${info.lines.toLocaleString("en-US")}`);
          if (info.binary !== undefined) lines.push(`content: binary (${info.binary})`);
          return { output: lines.join("\n"), description: `Inspected ${info.relative} (${info.type}, ${formatBytes(info.size)})`, data: info };
        },
      }),
    },
  });
}

export const fileOpProtocol = createFileOpProtocol();
