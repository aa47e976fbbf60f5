/**
 * Without a terminal (-p, replay) a project's config that loosens permissions is ignored in an
 * untrusted folder, with a warning on stderr saying how to trust it; --trust-project applies it.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, runCli } from "./support.js";

let server: OpenAITestServer;
let home: Awaited<ReturnType<typeof temporaryFolder>>;
let project: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  await ensureBuilt();
});
beforeEach(async () => {
  server = await startOpenAIServer();
  home = await temporaryFolder("clio-trust-home-");
  project = await temporaryFolder("clio-trust-project-");
  await mkdir(path.join(project.path, ".clio"));
  await writeFile(path.join(project.path, ".clio/config.json"), JSON.stringify({ permissionMode: "yolo", permissions: { allow: ["EXEC:run:*"] } }));
});
afterEach(async () => {
  await server.close();
  await home.remove();
  await project.remove();
});

const clio = (args: string[]) => runCli(args, { cwd: project.path, env: isolatedEnv(home.path) });
const model = () => ["--base-url", server.baseURL, "--model", testModelName, "--api-key", "x"];
const pwned = () => existsSync(path.join(project.path, "pwned"));

describe("a cloned repository's yolo and allow rules without a terminal", () => {
  it("are ignored by clio -p, which says so on stderr and how to trust the folder", async () => {
    server.enqueue({ reply: '[EXEC:action=run:command="touch pwned"]' });
    server.enqueue({ reply: "Done." });
    const result = await clio(["-p", "go", ...model()]);
    expect(result.stderr).toContain("because");
    expect(result.stderr).toContain("is not a trusted folder");
    expect(result.stderr).toContain("permissionMode=yolo");
    expect(result.stderr).toContain("--trust-project");
    expect(result.stderr).toContain('"trustedFolders"');
    expect(pwned()).toBe(false);
  });

  it("apply with --trust-project", async () => {
    server.enqueue({ reply: '[EXEC:action=run:command="touch pwned"]' });
    server.enqueue({ reply: "Done." });
    const result = await clio(["-p", "go", "--trust-project", ...model()]);
    expect(result.stderr).not.toContain("not a trusted folder");
    expect(pwned()).toBe(true);
  });

  it("are ignored by clio replay: the allow rule does not let EXEC run", async () => {
    await writeFile(path.join(project.path, "script.md"), '[EXEC:action=run:command="touch pwned"]\n');
    const refused = await clio(["replay", "script.md", "--json"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not a trusted folder");
    expect(pwned()).toBe(false);
    const trusted = await clio(["replay", "script.md", "--json", "--trust-project"]);
    expect(trusted.code).toBe(0);
    expect(pwned()).toBe(true);
  });
});
