import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import type { CommandResult } from "../../src/manager/result.js";
import { TerminalView } from "../../src/ui/terminal-view.js";

describe("the chat's result lines", () => {
  it("show a result's display lines (the TODO checklist) under its line, and nothing more for others", () => {
    let shown = "";
    const view = new TerminalView({ style: new Chalk({ level: 0 }), output: { isTTY: false, write: (text: string) => ((shown += text), true) } });
    const base: CommandResult = {
      id: 1,
      ok: true,
      protocol: "TODO",
      action: "update",
      permissionClass: "write",
      description: "Todo item 1: done",
      output: "x",
      durationMs: 2,
      truncated: false,
    };
    view.onManagerEvent({ type: "command-finished", id: 1, result: { ...base, display: ["[x] 1. Read the parser", "[ ] 2. Fix the bug"] } });
    view.onManagerEvent({ type: "command-finished", id: 2, result: { ...base, id: 2, description: "Read a.txt", display: undefined } });
    expect(shown).toBe("✓ Todo item 1: done  2 ms\n  │ [x] 1. Read the parser\n  │ [ ] 2. Fix the bug\n✓ Read a.txt  2 ms\n");
  });
});
