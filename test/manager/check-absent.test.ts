/** Optional parameters left out: what the check gives for each kind of schema, first time and again. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parse } from "../../grammar/index.js";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";
import { checkCommand } from "../../src/manager/check.js";
import { ProtocolRegistry } from "../../src/registry.js";

const NOTE = defineProtocol({
  name: "NOTE",
  summary: "test protocol",
  actions: {
    add: defineAction({
      summary: "add",
      permission: "read",
      parameters: {
        text: parameter.text("the note"),
        count: parameter.integer("how many"),
        kind: parameter.word("a kind, plain by default", z.string().default("plain")),
        strict: parameter.boolean("strict"),
        tag: parameter.word("required even when left out", z.string({ required_error: "is required" })),
      },
      describe: () => "adding",
      handler: async () => ({ output: "" }),
    }),
  },
});

const check = (text: string) => checkCommand(parse(text).commands[0]!, new ProtocolRegistry([NOTE]));

describe("checkCommand with optional parameters left out", () => {
  it("leaves optional ones out, fills defaults and refuses a missing required one, every time", () => {
    for (let round = 0; round < 3; round++) {
      const checked = check(`[NOTE:action=add:text="hello":tag=t]`);
      expect(checked.ok && checked.invocation.args).toEqual({ text: "hello", kind: "plain", tag: "t" });
      const missing = check(`[NOTE:action=add:text="hello"]`);
      expect(missing).toMatchObject({ ok: false, error: { code: "missing_parameter" } });
      const given = check(`[NOTE:action=add:text="hello":tag=t:count=3:strict=yes:kind=odd]`);
      expect(given.ok && given.invocation.args).toEqual({ text: "hello", tag: "t", count: 3, strict: true, kind: "odd" });
      expect(check("[NOTE:action=add:tag=t]")).toMatchObject({ ok: false, error: { code: "missing_parameter", message: expect.stringContaining("text") } });
    }
  });
});
