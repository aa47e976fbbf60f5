/** A small protocol used to test the manager without any real tool behind it. */
import { z } from "zod";
import { ProtocolError } from "../../protocols/contract/errors.js";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";

export interface NotesState {
  notes: Map<string, string>;
  log: string[];
  disposed: boolean;
}

export const notesProtocol = defineProtocol<NotesState>({
  name: "NOTES",
  summary: "Keeps notes in memory (test protocol).",
  setup: () => ({ notes: new Map(), log: [], disposed: false }),
  dispose: (state) => {
    state.disposed = true;
  },
  actions: {
    get: defineAction<{ key: string; delay: number | undefined }, NotesState>({
      summary: "Reads a note.",
      permission: "read",
      parameters: { key: parameter.text("the note's name"), delay: parameter.integer("milliseconds to wait first", { min: 0 }) },
      describe: (args) => `Reading note ${args.key}`,
      async handler(args, { state }) {
        state.log.push(`start get ${args.key}`);
        if (args.delay) await new Promise((resolve) => setTimeout(resolve, args.delay));
        state.log.push(`end get ${args.key}`);
        const value = state.notes.get(args.key);
        if (value === undefined) throw new ProtocolError("not_found", `No note named ${args.key}.`, "Save it first with action=set.");
        return { output: value };
      },
    }),
    set: defineAction<{ key: string; value: string; delay: number | undefined }, NotesState>({
      summary: "Writes a note.",
      permission: "write",
      parameters: {
        key: parameter.text("the note's name"),
        value: parameter.text("the note's text"),
        delay: parameter.integer("milliseconds to wait first", { min: 0 }),
      },
      describe: (args) => `Saving note ${args.key}`,
      async handler(args, { state }) {
        state.log.push(`start set ${args.key}`);
        if (args.delay) await new Promise((resolve) => setTimeout(resolve, args.delay));
        state.notes.set(args.key, args.value);
        state.log.push(`end set ${args.key}`);
        return { output: `saved ${args.key}`, data: { key: args.key } };
      },
    }),
    run: defineAction<{ command: string }, NotesState>({
      summary: "Pretends to run a command.",
      permission: "exec",
      parameters: { command: parameter.text("the command") },
      describe: (args) => `Running ${args.command}`,
      async handler(args) {
        return { output: `ran ${args.command}` };
      },
    }),
    boom: defineAction<{ kind: "plain" | "string" | undefined }, NotesState>({
      summary: "Throws.",
      permission: "read",
      parameters: { kind: parameter.choice("what to throw", ["plain", "string"]) },
      describe: () => "Exploding",
      async handler(args) {
        if (args.kind === "string") throw "a bare string";
        throw new TypeError("cannot read properties of undefined");
      },
    }),
    snapshot: defineAction<{ delay: number | undefined }, NotesState>({
      summary: "Reads every note into a snapshot later reads depend on (read permission, but exclusive).",
      permission: "read",
      exclusive: true,
      parameters: { delay: parameter.integer("milliseconds to wait first", { min: 0 }) },
      describe: () => "Taking a snapshot",
      async handler(args, { state }) {
        state.log.push("start snapshot");
        if (args.delay) await new Promise((resolve) => setTimeout(resolve, args.delay));
        state.log.push("end snapshot");
        return { output: [...state.notes.keys()].join(",") };
      },
    }),
    big: defineAction<{ size: number | undefined }, NotesState>({
      summary: "Returns a long output.",
      permission: "read",
      parameters: { size: parameter.integer("characters", { min: 1 }) },
      describe: () => "Making a long output",
      async handler(args) {
        return { output: "x".repeat(args.size ?? 100) };
      },
    }),
    tagged: defineAction<{ meta: { tags: string[] } }, NotesState>({
      summary: "Takes JSON.",
      permission: "read",
      parameters: { meta: parameter.json("metadata", z.object({ tags: z.array(z.string()) })) },
      describe: () => "Reading tags",
      async handler(args) {
        return { output: args.meta.tags.join(",") };
      },
    }),
  },
});
