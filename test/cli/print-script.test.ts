/**
 * `clio -p` as a step in a script: exit statuses a script can act on, hints that really allow
 * a refused action, stream-json in and out, and model servers that hang or break off.
 */
import { describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { testModelName } from "../support/openai-server.js";
import { freshCliFixture, isolatedEnv, runCli } from "./support.js";

const fixture = freshCliFixture();
const model = () => ["--base-url", fixture.server.baseURL, "--model", testModelName, "--api-key", "x"];
const clio = (args: string[], input?: string) => runCli(args, { cwd: fixture.workspace.path, env: isolatedEnv(fixture.home.path), ...(input === undefined ? {} : { input }) });

describe("exit statuses and hints", () => {
  it("exits 3 when a needed command was refused, and the hint's setting really lets it run", async () => {
    fixture.server.enqueue({ reply: '[EXEC:action=run:command="echo made > made.txt"]\n' }, { reply: "I could not run it." });
    const refused = await clio(["-p", "make the file", ...model()]);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe("I could not run it.\n");
    expect(existsSync(path.join(fixture.workspace.path, "made.txt"))).toBe(false);
    const rule = /add "([^"]+)" to permissions\.allow/.exec(refused.stderr)?.[1];
    expect(rule).toBe("EXEC:run:echo made > made.txt");
    expect(refused.stderr).toContain("--permission-mode yolo");

    await mkdir(path.join(fixture.home.path, ".clio"), { recursive: true });
    await writeFile(path.join(fixture.home.path, ".clio", "config.json"), JSON.stringify({ permissions: { allow: [rule] } }));
    fixture.server.enqueue({ reply: '[EXEC:action=run:command="echo made > made.txt"]\n' }, { reply: "Made it." });
    const allowed = await clio(["-p", "make the file", ...model()]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe("Made it.\n");
    expect(await readFile(path.join(fixture.workspace.path, "made.txt"), "utf8")).toBe("made\n");
  });

  it("names auto-edit for a refused write, and auto-edit then writes", async () => {
    fixture.server.enqueue({ reply: '[FILE_OP:action=write:path="w.txt":content="w"]\n' }, { reply: "Refused." });
    const refused = await clio(["-p", "write", "--output-format", "json", ...model()]);
    expect(refused.code).toBe(3);
    const summary = JSON.parse(refused.stdout);
    expect(summary.refused[0].error.hint).toContain("--permission-mode auto-edit");
    fixture.server.enqueue({ reply: '[FILE_OP:action=write:path="w.txt":content="w"]\n' }, { reply: "Written." });
    expect((await clio(["-p", "write", "--permission-mode", "auto-edit", ...model()])).code).toBe(0);
    expect(await readFile(path.join(fixture.workspace.path, "w.txt"), "utf8")).toBe("w");
  });
});

describe("checks after edits", () => {
  it("runs the configured checks after the model changes files; a failure goes back to the model until it is fixed", async () => {
    await mkdir(path.join(fixture.workspace.path, ".clio"), { recursive: true });
    await writeFile(path.join(fixture.workspace.path, ".clio", "config.json"), JSON.stringify({ checks: { afterEdit: ["test -s a.js"], afterTurn: ["grep -q fixed a.js"] } }));
    fixture.server.enqueue(
      { reply: '[FILE_OP:action=write:path="a.js":content="broken"]\n' },
      { reply: "Done." },
      { reply: '[FILE_OP:action=write:path="a.js":content="fixed"]\n' },
      { reply: "Fixed and done." },
    );
    const result = await clio(["-p", "write a.js", "--permission-mode", "yolo", "--verbose", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Fixed and done.\n");
    expect(result.stderr).toContain("✓ check test -s a.js exited with code 0");
    expect(result.stderr).toContain("✗ check grep -q fixed a.js exited with code 1");
    const sentAfterDone = (fixture.server.requests[2]!.body.messages as { content: string }[]).at(-1)!.content;
    expect(sentAfterDone).toContain("The check `grep -q fixed a.js` exited with code 1 after your changes");
    expect(fixture.server.requests).toHaveLength(4);
  });

  it("asks before running a check, so without a terminal a project's checks do not run", async () => {
    await mkdir(path.join(fixture.workspace.path, ".clio"), { recursive: true });
    await writeFile(path.join(fixture.workspace.path, ".clio", "config.json"), JSON.stringify({ checks: { afterTurn: ["touch check-ran"] } }));
    fixture.server.enqueue({ reply: '[FILE_OP:action=write:path="b.txt":content="b"]\n' }, { reply: "Done." });
    const result = await clio(["-p", "write b.txt", "--permission-mode", "auto-edit", "--verbose", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("check touch check-ran not run");
    expect(existsSync(path.join(fixture.workspace.path, "check-ran"))).toBe(false);
  });
});

describe("the person's system prompt", () => {
  it("extends or replaces the built-in one; a file that cannot be read is a usage error", async () => {
    await writeFile(path.join(fixture.workspace.path, "prompt.md"), "Always answer in French.\n");
    fixture.server.enqueue({ reply: "Oui." }, { reply: "Oui." });
    expect((await clio(["-p", "hi", "--system-prompt-file", "prompt.md", ...model()])).code).toBe(0);
    const extended = (fixture.server.requests[0]!.body.messages as { content: string }[])[0]!.content;
    expect(extended).toContain("## Commands");
    expect(extended).toMatch(/## The person's own instructions\nAlways answer in French\.$/);
    expect((await clio(["-p", "hi", "--system-prompt-file", "prompt.md", "--system-prompt-mode", "replace", ...model()])).code).toBe(0);
    expect((fixture.server.requests[1]!.body.messages as { content: string }[])[0]!.content).toBe("Always answer in French.\n");
    const missing = await clio(["-p", "hi", "--system-prompt-file", "nope.md", ...model()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.md cannot be read (ENOENT)");
    expect(fixture.server.requests).toHaveLength(2);
  });
});

describe("clio config", () => {
  it("shows values given as flags, named as from the flags", async () => {
    const result = await clio(["config", "--max-turns", "7", "--request-timeout", "2.5", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/maxTurns = 7 +\(flag\)/);
    expect(result.stdout).toMatch(/requestTimeout = 2\.5 +\(flag\)/);
    expect(result.stdout).toMatch(/model = test-model +\(flag\)/);
  });
});

describe("model settings", () => {
  it("sends temperature, top_p, max_tokens and extra stop strings from the flags; refuses bad values", async () => {
    fixture.server.enqueue({ reply: "Tuned." });
    const result = await clio(["-p", "hi", "--temperature", "0.2", "--top-p", "0.9", "--max-tokens", "100", "--stop", "###", ...model()]);
    expect(result.code).toBe(0);
    expect(fixture.server.requests[0]!.body).toMatchObject({ temperature: 0.2, top_p: 0.9, max_tokens: 100 });
    expect(fixture.server.requests[0]!.body.stop).toContain("###");
    const bad = await clio(["-p", "hi", "--temperature", "hot", ...model()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("expected a number");
    expect((await clio(["-p", "hi", "--top-p", "3", ...model()])).stderr).toContain("must be 1 or less");
  });
});

describe("stream-json", () => {
  it("starts with an init event carrying the session id", async () => {
    fixture.server.enqueue({ reply: "Hi." });
    const result = await clio(["-p", "hi", "--output-format", "stream-json", ...model()]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: "init", model: testModelName, permissionMode: "ask" });
    expect(typeof events[0].session).toBe("string");
    expect(events.at(-1)).toMatchObject({ type: "result", session: events[0].session, result: "Hi." });
  });

  it("--input-format stream-json reads prompts as JSON lines into one conversation; a bad line stops with exit 2 naming it", async () => {
    fixture.server.enqueue({ reply: "First answer." }, { reply: "Second answer." });
    const lines = [
      JSON.stringify({ type: "user", message: { role: "user", content: "first" } }),
      "",
      JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "second" }] } }),
      "{not json",
      JSON.stringify({ prompt: "never sent" }),
    ].join("\n");
    const result = await clio(["-p", "--input-format", "stream-json", "--output-format", "stream-json", ...model()], `${lines}\n`);
    expect(result.code).toBe(2);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const results = events.filter((event) => event.type === "result");
    expect(results.map((event) => event.result)).toEqual(["First answer.", "Second answer."]);
    expect(new Set(results.map((event) => event.session)).size).toBe(1);
    expect(result.stderr).toContain("line 4 of standard input is not a prompt");
    expect(fixture.server.requests).toHaveLength(2);
    const messages = fixture.server.requests[1]!.body.messages as { content: string }[];
    expect(messages.map((message) => message.content)).toContain("first");
  });
});

describe("servers that hang or break off", () => {
  it("gives up on a server that accepts and never answers after --request-timeout, says what it waits for, and tries again", async () => {
    fixture.server.enqueue({ reply: "", hang: true }, { reply: "Finally." });
    const result = await clio(["-p", "hi", "--request-timeout", "0.5", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Finally.\n");
    expect(result.stderr).toMatch(/no answer from the server within 0\.5 s \(requestTimeout\)\); waiting \d+\.\d s before trying again/);
  });

  it("takes a reply silent longer than --idle-timeout as broken and asks again", async () => {
    fixture.server.enqueue({ reply: "Slow start, then nothing for long", chunkSizes: 5, chunkDelayMs: 3000 }, { reply: "Whole reply." });
    const result = await clio(["-p", "hi", "--idle-timeout", "0.5", ...model()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Whole reply.\n");
    expect(result.stderr).toContain("idleTimeout");
  });

  it("never runs a reply whose stream ended mid-heredoc without a finish; the same request is sent again", async () => {
    const reply = 'Writing.\n[FILE_OP:action=write:path="out.txt":content<<EOF\nline one\nline two\nEOF\n]\n';
    fixture.server.enqueue({ reply, chunkSizes: 8, endAfterChunks: 5 }, { reply, chunkSizes: 8 }, { reply: "Wrote out.txt." });
    const result = await clio(["-p", "write out.txt", "--permission-mode", "auto-edit", "--output-format", "json", ...model()]);
    expect(result.code).toBe(0);
    expect(await readFile(path.join(fixture.workspace.path, "out.txt"), "utf8")).toBe("line one\nline two");
    const summary = JSON.parse(result.stdout);
    expect(summary.commands).toHaveLength(1);
    expect(fixture.server.requests[1]!.body.messages).toEqual(fixture.server.requests[0]!.body.messages);
  });
});
