/** `clio config`, `clio start` and the chat's entry without a terminal, through the bundled CLI. */
import { describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { freshCliFolders, isolatedEnv, runCli } from "./support.js";

const folders = freshCliFolders();

const clio = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: folders.workspace.path, env: isolatedEnv(folders.home.path, env) });

describe("clio config", () => {
  it("prints every setting with where it came from, and never the API key itself", async () => {
    await mkdir(path.join(folders.home.path, ".clio"), { recursive: true });
    await writeFile(path.join(folders.home.path, ".clio", "config.json"), JSON.stringify({ model: "from-user-config", permissions: { deny: ["WEB"] } }));
    const result = await clio(["config"], { OPENAI_API_KEY: "sk-test-0123456789abcdef", CLIO_MAX_TURNS: "7" });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("sk-test-0123456789abcdef");
    expect(result.stdout).toMatch(/model = from-user-config\s+\(user:/);
    expect(result.stdout).toMatch(/maxTurns = 7\s+\(env:CLIO_MAX_TURNS\)/);
    expect(result.stdout).toMatch(/provider = openai\s+\(env OPENAI_API_KEY\)/);
    expect(result.stdout).toContain("permissions.deny = WEB");
    expect(result.stdout).not.toContain("\u001b[");
  });

  it("says how to configure a model when none is, and still exits 0", async () => {
    const result = await clio(["config"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("No model provider is configured");
  });

  it("exits 2 naming the file and the key when a config file is wrong", async () => {
    await mkdir(path.join(folders.workspace.path, ".clio"), { recursive: true });
    const file = path.join(folders.workspace.path, ".clio", "config.json");
    await writeFile(file, JSON.stringify({ maxTurns: "lots" }));
    const result = await clio(["config"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("maxTurns");
  });
});

describe("clio start", () => {
  it("runs the offline demo when no model is configured, plain when not a terminal", async () => {
    const result = await clio(["start"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("No model provider is configured");
    expect(result.stdout).toContain("here is the offline demo");
    expect(result.stdout).toContain("Finished (done) after 5 model replies");
    expect(result.stdout).not.toContain("\u001b[");
  }, 60_000);

  it("runs the demo instead of the chat when a model is configured but this is not a terminal", async () => {
    const result = await clio(["start"], { OPENAI_API_KEY: "sk-test-0123456789abcdef" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("this is not a terminal: showing the offline demo");
  }, 60_000);
});

describe("the chat without a terminal", () => {
  it("exits 2 and points to clio -p", async () => {
    const result = await clio(["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("clio -p");
  });
});
