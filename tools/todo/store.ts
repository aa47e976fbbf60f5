/**
 * The workspace's todo list in `.clio/todo.json`: read, replaced whole, added to, updated.
 * Every change takes `todo.json.lock`, re-reads the file, applies the change and replaces the
 * file atomically, so two clio processes lose nothing. A damaged file is never overwritten:
 * reading it is an error naming it, and a whole-list write first moves it aside.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeAtomically } from "../atomic-file.js";
import { ToolError } from "../errors.js";
import { withFileLock, type FileLockOptions } from "../lock-file.js";

export const todoStatuses = ["pending", "in_progress", "done"] as const;
export type TodoStatus = (typeof todoStatuses)[number];

export interface TodoItem {
  /** 1, 2, 3 … in the order items were added; never reused within a list. */
  id: number;
  text: string;
  status: TodoStatus;
}

export interface TodoList {
  version: 1;
  items: TodoItem[];
  /** The id the next added item gets. */
  nextId: number;
}

/** What a new list is made of: text, and a status (default pending). */
export interface NewTodoItem {
  text: string;
  status?: TodoStatus;
}

const emptyList = (): TodoList => ({ version: 1, items: [], nextId: 1 });

export class TodoStore {
  readonly file: string;

  constructor(
    workspaceRoot: string,
    private readonly lock: FileLockOptions = {},
  ) {
    this.file = path.join(workspaceRoot, ".clio", "todo.json");
  }

  /** The list as stored (empty when there is no file yet). */
  async read(): Promise<TodoList> {
    const text = await fs.readFile(this.file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new ToolError("corrupt_file", `${this.file} cannot be read (${error.message}).`, "Make the file readable, or delete it to start a new list.");
    });
    if (text === undefined) return emptyList();
    const parsed = parseTodoList(text);
    if (typeof parsed === "string") {
      throw new ToolError(
        "corrupt_file",
        `The todo file ${this.file} is damaged: ${parsed}.`,
        "Fix the file by hand, or replace the whole list with the write action (the damaged file is kept aside).",
      );
    }
    return parsed;
  }

  /** Replaces the whole list; ids start again at 1. A damaged file is kept as `todo.json.corrupt-<time>`. */
  async write(items: NewTodoItem[]): Promise<{ list: TodoList; keptAside?: string }> {
    return this.change(async () => {
      let keptAside: string | undefined;
      try {
        await this.read();
      } catch (error) {
        if (!(error instanceof ToolError) || error.code !== "corrupt_file") throw error;
        keptAside = `${this.file}.corrupt-${Date.now()}`;
        await fs.rename(this.file, keptAside);
      }
      const list: TodoList = { version: 1, items: items.map((item, index) => ({ id: index + 1, text: item.text, status: item.status ?? "pending" })), nextId: items.length + 1 };
      return { list, result: { list, ...(keptAside ? { keptAside } : {}) } };
    });
  }

  async add(text: string): Promise<{ list: TodoList; item: TodoItem }> {
    return this.change(async () => {
      const list = await this.read();
      const item: TodoItem = { id: list.nextId, text, status: "pending" };
      const next = { ...list, items: [...list.items, item], nextId: list.nextId + 1 };
      return { list: next, result: { list: next, item } };
    });
  }

  async update(id: number, change: { status: TodoStatus; text?: string }): Promise<{ list: TodoList; item: TodoItem; before: TodoItem }> {
    return this.change(async () => {
      const list = await this.read();
      const before = list.items.find((item) => item.id === id);
      if (before === undefined) {
        const ids = list.items.map((item) => item.id);
        throw new ToolError(
          "not_found",
          `The todo list has no item ${id}.`,
          ids.length === 0 ? "The list is empty: add items with the add or write action." : `Its ids are ${ids.join(", ")}; the read action shows them.`,
        );
      }
      const item: TodoItem = { ...before, status: change.status, ...(change.text === undefined ? {} : { text: change.text }) };
      const next = { ...list, items: list.items.map((entry) => (entry.id === id ? item : entry)) };
      return { list: next, result: { list: next, item, before } };
    });
  }

  private async change<Result>(work: () => Promise<{ list: TodoList; result: Result }>): Promise<Result> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    return withFileLock(
      `${this.file}.lock`,
      async () => {
        const { list, result } = await work();
        await writeAtomically(this.file, `${JSON.stringify(list, null, 2)}\n`);
        return result;
      },
      this.lock,
    );
  }
}

/** The list in `text`, or why it is not one. */
export function parseTodoList(text: string): TodoList | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return text.trim() === "" ? "the file is empty" : `it is not valid JSON (${(error as Error).message})`;
  }
  const data = value as Partial<TodoList> | null;
  if (typeof data !== "object" || data === null || !Array.isArray(data.items)) return 'it does not hold an "items" list';
  if (data.version !== 1) return `its format version is ${JSON.stringify(data.version)}, not 1`;
  const seen = new Set<number>();
  for (const [index, item] of data.items.entries()) {
    if (!isTodoItem(item)) return `item ${index + 1} is not {id, text, status}`;
    if (seen.has(item.id)) return `the id ${item.id} appears twice`;
    seen.add(item.id);
  }
  const highest = Math.max(0, ...seen);
  const nextId = typeof data.nextId === "number" && Number.isInteger(data.nextId) && data.nextId > highest ? data.nextId : highest + 1;
  return { version: 1, items: data.items as TodoItem[], nextId };
}

function isTodoItem(item: unknown): item is TodoItem {
  if (typeof item !== "object" || item === null) return false;
  const { id, text, status } = item as Partial<TodoItem>;
  return typeof id === "number" && Number.isInteger(id) && id > 0 && typeof text === "string" && todoStatuses.includes(status as TodoStatus);
}

const marks: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

/** `[x] 1. Write the parser` … one line per item; "(empty)" for an empty list. */
export function checklist(list: TodoList): string[] {
  if (list.items.length === 0) return ["(the todo list is empty)"];
  return list.items.map((item) => `${marks[item.status]} ${item.id}. ${item.text.replace(/\s*\n\s*/g, " ")}`);
}

/** `1 done, 1 in progress, 1 pending`. */
export function tally(list: TodoList): string {
  const count = (status: TodoStatus) => list.items.filter((item) => item.status === status).length;
  return `${count("done")} done, ${count("in_progress")} in progress, ${count("pending")} pending`;
}
