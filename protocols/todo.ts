/**
 * TODO — the plan of the work at hand as a checklist in the workspace's `.clio/todo.json`:
 * read it, replace it whole (write), add an item, update an item's status or text. Changes are
 * locked and atomic, so two clio processes lose nothing; the chat shows the checklist whenever
 * it changes, and the model finds the list in its prompt when a session resumes.
 *
 * Changing the list touches only clio's own plan, never the person's files, so it asks no
 * permission and works in plan mode (read class); the changes are exclusive, so they run alone
 * and in the order written.
 */
import { z } from "zod";
import { defineAction, defineProtocol, parameter } from "./contract/protocol.js";
import { loadOnce } from "./contract/load-once.js";
import { ProtocolError } from "./contract/errors.js";
import { todoStatuses, type TodoList, type TodoStore } from "../tools/todo/store.js";

/** The store, loaded on the first TODO use rather than at start-up. */
const loadTodoTools = loadOnce(() => import("../tools/todo/store.js"));

const newItem = z.union([
  z.string().trim().min(1, "an item's text must not be empty"),
  z.object({ text: z.string().trim().min(1, "an item's text must not be empty"), status: z.enum(todoStatuses).optional() }).strict(),
]);
const itemList = z
  .array(newItem, { invalid_type_error: 'expected a JSON list such as ["Read the parser", {"text": "Fix the bug", "status": "in_progress"}]' })
  .max(200, "at most 200 items");

async function shown(list: TodoList, headline: string) {
  const { checklist, tally } = await loadTodoTools();
  const lines = checklist(list);
  return { output: `${headline}\n${lines.join("\n")}\n(${tally(list)})`, display: lines, data: list };
}

export const todoProtocol = defineProtocol<TodoStore>({
  name: "TODO",
  summary: "Keep a checklist of the work at hand (.clio/todo.json): read it, write the whole list, add an item, update an item's status.",
  setup: async (environment) => {
    const { TodoStore } = await loadTodoTools();
    return new TodoStore(environment.workspace.root);
  },
  /** The current list, so a resumed session knows where the work stood. */
  async promptContext(store) {
    const { checklist } = await loadTodoTools();
    const list = await store.read();
    return list.items.length === 0 ? [] : [`Todo list (TODO action=read): ${checklist(list).join("; ")}`];
  },
  actions: {
    read: defineAction({
      summary: "Show the todo list with each item's id and status.",
      permission: "read",
      parameters: {},
      describe: () => "Reading the todo list",
      async handler(_args, { state }) {
        const list = await state.read();
        const { tally } = await loadTodoTools();
        const { output, data } = await shown(list, "Todo list:");
        return { output, data, description: `Read the todo list (${tally(list)})` };
      },
    }),

    write: defineAction({
      summary: 'Replace the whole list: items is a JSON list of texts or {"text", "status"} objects; ids start at 1.',
      permission: "read",
      exclusive: true,
      parameters: { items: parameter.json('The new list, e.g. ["Read the parser", {"text": "Fix the bug", "status": "in_progress"}]', itemList) },
      describe: (args) => `Writing a todo list of ${args.items.length} item${args.items.length === 1 ? "" : "s"}`,
      async handler(args, { state }) {
        const { list, keptAside } = await state.write(args.items.map((item) => (typeof item === "string" ? { text: item } : item)));
        const aside = keptAside === undefined ? "" : ` (the damaged old file was kept as ${keptAside})`;
        return { ...(await shown(list, `Wrote the todo list${aside}:`)), description: `Wrote the todo list (${list.items.length} items)` };
      },
    }),

    add: defineAction({
      summary: "Add one pending item at the end of the list.",
      permission: "read",
      exclusive: true,
      parameters: { text: parameter.text("What is to be done") },
      describe: (args) => `Adding a todo item: ${args.text.slice(0, 60)}`,
      async handler(args, { state }) {
        const text = args.text.trim();
        if (text === "") throw new ProtocolError("invalid_argument", "TODO.add: text is empty.", 'Give the item\'s text, e.g. text="Run the tests".');
        const { list, item } = await state.add(text);
        return { ...(await shown(list, `Added item ${item.id}:`)), description: `Added todo item ${item.id}` };
      },
    }),

    update: defineAction({
      summary: "Set an item's status (pending, in_progress or done) and optionally its text.",
      permission: "read",
      exclusive: true,
      parameters: {
        id: parameter.requiredInteger("The item's id (TODO action=read shows them)", { min: 1 }),
        status: parameter.word("pending, in_progress or done", z.enum(todoStatuses)),
        text: parameter.optionalText("New text for the item"),
      },
      describe: (args) => `Marking todo item ${args.id} ${args.status.replace("_", " ")}`,
      async handler(args, { state }) {
        const { list, item } = await state.update(args.id, { status: args.status, ...(args.text?.trim() ? { text: args.text.trim() } : {}) });
        return { ...(await shown(list, `Item ${item.id} is now ${item.status.replace("_", " ")}:`)), description: `Todo item ${item.id}: ${item.status.replace("_", " ")}` };
      },
    }),
  },
});
