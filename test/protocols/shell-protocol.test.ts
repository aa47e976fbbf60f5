/**
 * Shell protocols from config: templates with shell-quoted parameters, run like EXEC run.
 * The property: whatever a parameter holds (; | $() ` newlines, quotes), the program receives
 * it as one argument, byte for byte, and the shell runs nothing else.
 */
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClioConfig } from "../../src/config/schema.js";
import { loadProtocols } from "../../src/protocol-sources.js";
import { runScript } from "../../src/replay/run-script.js";
import { fillTemplate, parseTemplate, shellProtocol as declare, type ShellProtocolConfig } from "../../protocols/external/shell.js";
import { Workspace } from "../../tools/workspace.js";
import { environmentFor, invoke } from "./invoke.js";
import { temporaryFolder } from "../support/workspace.js";

/** A declared shell protocol that must be valid. */
function shellProtocol(name: string, config: ShellProtocolConfig, options: { source: string }) {
  const made = declare(name, config, options);
  if (!made.ok) throw new Error(made.message);
  return made.protocol;
}

let folder: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  folder = await temporaryFolder("clio-shell-protocol-");
});
afterEach(() => folder.remove());

const declared = (config: ClioConfig["shellProtocols"][string]["config"]) => ({ config, source: "/home/me/.clio/config.json" });

/** Prints each argument between markers, so the test sees exactly what the program got. */
const echoArguments = "printf '<%s>'";

describe("templates", () => {
  it("substitutes parameters, keeps {{ and }} literal, and leaves out an absent optional one", () => {
    const pieces = parseTemplate("wc {flags} -w {path} && echo {{done}}", ["path", "flags"], "here");
    expect(fillTemplate(pieces, { path: "a b.txt" })).toBe("wc  -w 'a b.txt' && echo {done}");
    expect(fillTemplate(pieces, { path: "it's", flags: "-l" })).toBe("wc -l -w 'it'\\''s' && echo {done}");
  });

  it("names the protocol, action and parameter of a bad template", () => {
    expect(() => parseTemplate("wc -w {file}", ["path"], "config.json: shellProtocols.WORDS.actions.count")).toThrow(
      "config.json: shellProtocols.WORDS.actions.count: the command uses {file}, which is not one of its parameters (path).",
    );
    expect(() => parseTemplate("echo {", [], "here")).toThrow(/does not start a \{parameter\}/);
    expect(() => parseTemplate("echo }", [], "here")).toThrow(/a lone "}"/);
  });
});

describe("running", () => {
  it("passes any text to the program as one argument, never to the shell (property)", async () => {
    const protocol = shellProtocol(
      "ECHO",
      { summary: "Echo", actions: { say: { summary: "Echo the arguments", command: `${echoArguments} {first} {second}`, parameters: { first: "text", second: "text" } } } },
      { source: "test" },
    );
    const environment = environmentFor(await Workspace.open(folder.path), { PATH: process.env.PATH });
    const dangerous = fc.constantFrom(";", "|", "$(touch pwned)", "`touch pwned`", "\n", "'", '"', "\\", "&&", "$HOME", "*", " ", "-rf", ">out", "{first}", "#");
    const piece = fc.oneof(
      dangerous,
      fc.string({ maxLength: 6 }).filter((text) => !text.includes("\0")),
    );
    const value = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(""));
    await fc.assert(
      fc.asyncProperty(value, value, async (first, second) => {
        const result = await invoke(protocol, "say", { first, second }, { environment });
        expect(result.output).toBe(`exit code 0 after ${result.output.match(/after ([\d.]+ s)/)![1]}\n--- stdout ---\n<${first}><${second}>`);
      }),
      { numRuns: 100 },
    );
    // Nothing the values held ran: no file appeared (EXEC may keep its own state in .clio).
    expect((await readdir(folder.path)).filter((name) => name !== ".clio")).toEqual([]);
  });

  it("runs as exec through replay: refused in plan mode, run in yolo, a failing command fails", async () => {
    await writeFile(path.join(folder.path, "words.txt"), "one two three\n");
    const shellProtocols = {
      WORDS: declared({ summary: "Count words", actions: { count: { summary: "Count the words of a file", command: "wc -w < {path}", parameters: { path: "text" } } } }),
    };
    const planned = await runScript('[WORDS:action=count:path="words.txt"]', { workspace: folder.path, permissionMode: "plan", extensions: { shellProtocols } });
    expect(planned.outcome.results[0]).toMatchObject({ ok: false, permissionClass: "exec", error: { code: "permission_denied" } });
    const ran = await runScript('[WORDS:action=count:path="words.txt"] [WORDS:action=count:path="missing.txt"] [WORDS:action=count]', {
      workspace: folder.path,
      permissionMode: "yolo",
      extensions: { shellProtocols },
    });
    const [counted, missing, without] = ran.outcome.results;
    expect(counted).toMatchObject({ ok: true, description: expect.stringMatching(/^Ran WORDS count/), output: expect.stringMatching(/--- stdout ---\n3$/) });
    expect(missing).toMatchObject({ ok: false, error: { code: "exec_failed", message: expect.stringContaining("WORDS count exited with code") } });
    expect(without).toMatchObject({ ok: false, error: { code: "missing_parameter" } });
  });

  it("converts typed parameters and times out like EXEC", async () => {
    const protocol = shellProtocol(
      "T",
      {
        summary: "Typed",
        actions: {
          show: {
            summary: "Show",
            command: `${echoArguments} {count} {ratio} {flag} {data}`,
            parameters: { count: "integer", ratio: "number", flag: "boolean", data: { kind: "json", optional: true } },
          },
          slow: { summary: "Sleep", command: "sleep 5", timeout: 1 },
        },
      },
      { source: "test" },
    );
    const environment = environmentFor(await Workspace.open(folder.path), { PATH: process.env.PATH });
    const shown = await invoke(protocol, "show", { count: "3", ratio: "0.5", flag: "yes", data: '{"a": [1, "x y"]}' }, { environment });
    expect(shown.output).toMatch(/<3><0.5><true><\{"a":\[1,"x y"\]\}>$/);
    await expect(invoke(protocol, "show", { count: "three", ratio: "1", flag: "true" }, { environment })).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(invoke(protocol, "slow", {}, { environment })).rejects.toMatchObject({ code: "timeout", message: expect.stringContaining("T slow timed out after 1.0 s") });
  });
});

describe("bad declarations", () => {
  it("leaves out a shell protocol with an unknown {param} or a taken name, with a warning naming it, and keeps the others", async () => {
    const registry = await loadProtocols({
      cwd: folder.path,
      shellProtocols: {
        WORDS: declared({ summary: "Count words", actions: { count: { summary: "Count", command: "wc -w {file}", parameters: { path: "text" } } } }),
        EXEC: declared({ summary: "Mine", actions: { run: { summary: "Run", command: "true" } } }),
        "bad name": declared({ summary: "x", actions: {} }),
        GOOD: declared({ summary: "Fine", actions: { hello: { summary: "Say hello", command: "echo hello" } } }),
      },
    });
    expect(registry.warnings).toEqual([
      '/home/me/.clio/config.json: shellProtocols.WORDS.actions.count: the command uses {file}, which is not one of its parameters (path). The shell protocol WORDS is left out. Declare "file" under parameters, or fix the name in the command.',
      "/home/me/.clio/config.json: the shell protocol EXEC would be the protocol EXEC, which clio already has; it is left out. Rename its key.",
      '/home/me/.clio/config.json: shellProtocols key "bad name" is not a protocol name. The shell protocol bad name is left out. Use letters, digits and _, starting with a letter (e.g. WORDS).',
    ]);
    expect(registry.get("GOOD")?.actions.hello?.permission).toBe("exec");
    expect(registry.get("WORDS")).toBeUndefined();
    expect(registry.get("EXEC")?.summary).not.toBe("Mine");
    // In the system prompt like any protocol, within the budget protocols from outside share.
    const { buildSystemPrompt } = await import("../../src/agent/system-prompt.js");
    expect(buildSystemPrompt({ registry })).toContain("\nGOOD — Fine\n  hello — Say hello\n");
  });
});
