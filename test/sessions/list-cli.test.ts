/** `clio sessions list` through the bundled CLI: what a person sees about files it cannot read. */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledCli, repositoryRoot } from "../replay/shipped-scripts.js";
import { makeTempDir } from "./helpers.js";

const run = promisify(execFile);
let directory: string;

beforeAll(async () => {
  if (!existsSync(bundledCli)) await run(process.execPath, [path.join(repositoryRoot, "scripts", "build.mjs")], { cwd: repositoryRoot });
  directory = await makeTempDir("sessions-list-cli");
});
afterAll(async () => {
  await fs.rm(directory, { recursive: true, force: true });
});

describe("clio sessions list", () => {
  it("names the damaged session file it could not read and says what to do with it", async () => {
    const file = path.join(directory, "20261122-0243-abcdef.json"); // a file from clio before session format 2
    await fs.writeFile(file, '{"version": 1, "id": "20261122-0243-ab');
    const { stderr } = await run(process.execPath, [bundledCli, "sessions", "list", "--all", "--session-dir", directory], {
      cwd: directory,
      env: { ...process.env, CLIO_HOME: directory },
    });
    expect(stderr).toContain(file);
    expect(stderr).toMatch(/invalid JSON at line 1/);
    expect(stderr).toMatch(/clio -r 20261122-0243-abcdef|delete/);
  });
});
