import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Session, SessionStore, exportSession, printCommandLine } from "../../src/sessions/index.js";
import { makeTempDir } from "./helpers.js";

let directory: string;
let session: Session;

beforeAll(async () => {
  directory = await makeTempDir("sessions-export");
  let clock = Date.UTC(2026, 10, 22, 2, 43, 0);
  session = await new SessionStore(directory, { now: () => (clock += 1000), randomSuffix: () => "abcdef" }).create({
    workspace: "/work/app",
    provider: "scripted",
    model: "replay",
  });
  await session.appendMessage({ role: "user", content: "Read the main file", turn: 1 });
  await session.appendMessage({ role: "assistant", content: 'Reading it.\n[FILE_OP:action=read:path="src/main.c"]', turn: 1 });
  await session.appendCommand({
    protocol: "FILE_OP",
    action: "read",
    args: { path: "src/main.c" },
    description: "Read src/main.c (3 lines)",
    ok: true,
    output: "int main() {\n  return 0; // ```\n}",
    durationMs: 3,
    turn: 1,
  });
  await session.appendMessage({ role: "tool", content: "[RESULT 7f3a FILE_OP.read ok]\n...\n[/RESULT 7f3a]", turn: 1 });
  await session.addUsage({ turn: 1, inputTokens: 120, outputTokens: 30, estimated: true });
  await session.appendMessage({ role: "assistant", content: "Writing a note.", turn: 2 });
  await session.appendCommand({
    protocol: "FILE_OP",
    action: "write",
    args: { path: "notes/a b.md", content: 'line one\nsays "hi" ] : [X:y=z]', overwrite: true, blob: Buffer.from([0, 255]) },
    description: "Write notes/a b.md",
    ok: false,
    output: "",
    error: { code: "permission_denied", message: "writing is not allowed in plan mode", hint: "Switch to ask mode." },
    durationMs: 1,
    turn: 2,
  });
  await session.appendMessage({ role: "assistant", content: "Done.", turn: 2 });
});

afterAll(async () => {
  await session.close();
  await fs.rm(directory, { recursive: true, force: true });
});

describe("exportSession: replies", () => {
  it("is a scripted-provider file with the assistant replies in order", () => {
    expect(JSON.parse(exportSession(session, "replies"))).toEqual({
      version: 1,
      replies: ['Reading it.\n[FILE_OP:action=read:path="src/main.c"]', "Writing a note.", "Done."],
    });
  });
});

describe("exportSession: script", () => {
  it("writes one command per line, values quoted, in the order they ran", () => {
    expect(exportSession(session, "script")).toBe(
      ['[FILE_OP:action=read:path="src/main.c"]', '[FILE_OP:action=write:path="notes/a b.md":content="line one\\nsays \\"hi\\" ] : [X:y=z]":overwrite=true:blob=AP8=]', ""].join(
        "\n",
      ),
    );
  });

  it("leaves out a command rejected before it ran, whose text the session did not keep", async () => {
    const store = new SessionStore(directory, { randomSuffix: () => "fedcba" });
    const broken = await store.create({ workspace: "/work/app", provider: "scripted", model: "replay" });
    await broken.appendCommand({
      protocol: "MEMORY",
      action: "",
      description: "MEMORY",
      ok: false,
      output: "",
      error: { code: "syntax_error", message: "In [MEMORY: …" },
      durationMs: 0,
      turn: 1,
    });
    await broken.appendCommand({
      protocol: "MEMORY",
      action: "list",
      args: { action: "list" },
      description: "Listed 0 memories",
      ok: true,
      output: "No memories stored yet.",
      durationMs: 1,
      turn: 1,
    });
    expect(exportSession(broken, "script")).toBe("[MEMORY:action=list]\n");
    await broken.close();
  });

  it("round-trips every value through the quoted form", () => {
    const command = { protocol: "EXEC", action: "run", args: { command: 'echo "a\\b"\n\t]:[', timeout: 30, text: "é ✓ \u2028" } };
    const parsed = readCommandLine(printCommandLine(command));
    expect(parsed).toEqual({ protocol: "EXEC", values: { action: "run", command: command.args.command, timeout: "30", text: command.args.text } });
  });
});

describe("exportSession: markdown", () => {
  it("is a transcript by turn with each command, its outcome and its output", () => {
    const markdown = exportSession(session, "markdown");
    expect(markdown).toContain("# Read the main file\n");
    expect(markdown).toContain("- Session: 20261122-0243-abcdef\n- Workspace: /work/app\n- Model: scripted / replay\n");
    expect(markdown).toContain("- Tokens: 120 in, 30 out (estimated)");
    expect(markdown.indexOf("## Turn 1")).toBeLessThan(markdown.indexOf("## Turn 2"));
    expect(markdown).toContain("**FILE_OP.read** — Read src/main.c (3 lines) — ok, 3 ms");
    // the output holds ``` so its fence is longer
    expect(markdown).toContain("````text\nint main() {\n  return 0; // ```\n}\n````");
    expect(markdown).toContain("**FILE_OP.write** — Write notes/a b.md — failed: permission_denied, 1 ms");
    expect(markdown).toContain("> writing is not allowed in plan mode\n> Hint: Switch to ask mode.");
    expect(markdown).toContain("### Results (");
    const order = ["### User", "### Assistant", "**FILE_OP.read**", "### Results", "## Turn 2", "**FILE_OP.write**", "Done."].map((text) => markdown.indexOf(text));
    expect(order).toEqual([...order].sort((left, right) => left - right));
  });
});

/** A minimal reader for the printed form: `[NAME:key=value:...]` with bare or JSON-quoted values. */
function readCommandLine(line: string): { protocol: string; values: Record<string, string> } {
  expect(line.startsWith("[") && line.endsWith("]") && !line.includes("\n")).toBe(true);
  const protocol = /^\[([A-Za-z][A-Za-z0-9_]*):/.exec(line)![1]!;
  const values: Record<string, string> = {};
  let index = protocol.length + 2;
  while (index < line.length - 1) {
    const key = /^[A-Za-z_][A-Za-z0-9_-]*=/.exec(line.slice(index))![0].slice(0, -1);
    index += key.length + 1;
    if (line[index] === '"') {
      let end = index + 1;
      while (line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
      values[key] = JSON.parse(line.slice(index, end + 1));
      index = end + 1;
    } else {
      const bare = /^[A-Za-z0-9+/_.,@%~-]+=?=?/.exec(line.slice(index))![0];
      values[key] = bare;
      index += bare.length;
    }
    if (line[index] === ":") index++;
  }
  return { protocol, values };
}
