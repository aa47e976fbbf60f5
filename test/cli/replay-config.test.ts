import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { temporaryFolder } from "../support/workspace.js";

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, "../../dist/clio.cjs");

describe("clio replay under the person's config", () => {
  it("applies deny rules from the config files, even in yolo mode", async () => {
    const home = await temporaryFolder();
    const project = await temporaryFolder();
    try {
      await mkdir(path.join(home.path, ".clio"));
      await writeFile(path.join(home.path, ".clio/config.json"), JSON.stringify({ permissions: { deny: ["FILE_OP:delete"] } }));
      await writeFile(path.join(project.path, "keep.txt"), "precious\n");
      await writeFile(path.join(project.path, "script.md"), '[FILE_OP:action=delete:path="keep.txt"]\n');
      const failed = await run(process.execPath, [cli, "replay", "script.md", "--permission-mode", "yolo", "--json"], {
        cwd: project.path,
        env: { ...process.env, CLIO_HOME: home.path, HOME: home.path },
      }).catch((error: { code: number; stdout: string }) => error);
      expect("code" in failed && failed.code).toBe(1);
      expect(JSON.parse(failed.stdout.trim().split("\n")[0]!).error).toMatchObject({ code: "permission_denied", message: expect.stringContaining('deny rule "FILE_OP:delete"') });
      expect(existsSync(path.join(project.path, "keep.txt"))).toBe(true);
    } finally {
      await home.remove();
      await project.remove();
    }
  });
});
