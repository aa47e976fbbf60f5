/**
 * Tools never write command syntax: they name the action a hint suggests and its arguments, and
 * the protocol layer writes it in the language, each value in the form its parameter's kind needs.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { renderHint } from "../../protocols/contract/hints.js";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";
import { createRuntime } from "../../src/runtime.js";
import { ToolError } from "../../tools/errors.js";
import { temporaryFolder } from "../support/workspace.js";

const sample = defineProtocol({
  name: "SAMPLE",
  summary: "Suggests itself (test protocol).",
  actions: {
    open: defineAction<{ name: string | undefined; path: string | undefined }>({
      summary: "Fails with a hint that suggests other commands.",
      permission: "read",
      parameters: { name: parameter.word("a word", z.string().optional()), path: parameter.optionalPath("a path") },
      describe: () => "Opening",
      async handler() {
        throw new ToolError("not_found", "Nothing is open.", ["Open one with ", { action: "open", arguments: { name: "main", path: "src/a b.ts" } }, "."]);
      },
    }),
  },
});

describe("hints in the language", () => {
  it("writes a word bare and text quoted, under the protocol's own name", () => {
    const hint = renderHint(sample, ["Try ", { action: "open", arguments: { name: "main", path: "src/a b.ts" } }, " or ", { action: "open" }, "."]);
    expect(hint).toBe('Try [SAMPLE:action=open:name=main:path="src/a b.ts"] or [SAMPLE:action=open].');
    const [written] = parse(hint).commands;
    expect(written?.parameters.map(({ key, form, text }) => [key, form, text])).toEqual([
      ["action", "bare", "open"],
      ["name", "bare", "main"],
      ["path", "quoted", "src/a b.ts"],
    ]);
  });

  it("keeps the words of a suggestion naming an action the protocol lacks", () => {
    expect(renderHint(sample, ["See ", { action: "close", arguments: { id: "1" } }, "."])).toBe("See action=close:id=1.");
  });

  it("a tool's error keeps a plain hint for readers outside a protocol", () => {
    const error = new ToolError("not_found", "No commits.", ["Make one with ", { action: "commit" }, "."]);
    expect(error.hint).toBe("Make one with action=commit.");
    expect(error.hintParts).toEqual(["Make one with ", { action: "commit" }, "."]);
  });

  it("the manager writes a tool's suggestion for the protocol that ran it", async () => {
    const folder = await temporaryFolder();
    try {
      const author = { name: "Test", email: "test@example.com" };
      const runtime = await createRuntime({ workspace: folder.path, permissionMode: "yolo", env: {}, protocolConfig: { GIT: { author } } });
      const submit = (text: string) => Promise.all(parse(text).commands.map((command) => runtime.manager.submit({ command })));
      const [init, log, commit] = await submit('[GIT:action=init] [GIT:action=log] [GIT:action=commit:message="first"]');
      expect(init?.ok).toBe(true);
      expect(log?.error?.hint).toBe("Make the first one with [GIT:action=commit].");
      expect(commit?.error?.hint).toContain('[GIT:action=add:files="path"]');
      const written = parse(commit?.error?.hint ?? "");
      expect(written.errors).toEqual([]);
      expect(written.commands.map((command) => command.protocol)).toEqual(["GIT"]);
      await runtime.manager.dispose();
    } finally {
      await folder.remove();
    }
  });
});
