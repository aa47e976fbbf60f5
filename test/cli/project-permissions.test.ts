import { describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../../src/config/index.js";
import { projectPermissionWarnings } from "../../src/ui/chat.js";
import { temporaryFolder } from "../support/workspace.js";

describe("permissions loosened by a project's own config", () => {
  it("are named when the chat starts in a trusted folder, so the person sees what they trusted", async () => {
    const home = await temporaryFolder();
    const project = await temporaryFolder();
    try {
      await mkdir(path.join(project.path, ".clio"));
      await writeFile(path.join(project.path, ".clio/config.json"), JSON.stringify({ permissionMode: "yolo", permissions: { allow: ["EXEC:run:*"] } }));
      const resolved = await loadConfig({ cwd: project.path, env: {}, homeDir: home.path, trustProject: true });
      const warnings = projectPermissionWarnings(resolved);
      expect(warnings[0]).toMatch(/^Permission mode yolo comes from the project's own .*\.clio\/config\.json\.$/);
      expect(warnings[1]).toBe("The project's config allows without asking: EXEC:run:*.");
    } finally {
      await home.remove();
      await project.remove();
    }
  });

  it("stay quiet when the loosening comes from the person's own settings", async () => {
    const home = await temporaryFolder();
    const project = await temporaryFolder();
    try {
      const resolved = await loadConfig({ cwd: project.path, env: { CLIO_PERMISSION_MODE: "yolo" }, homeDir: home.path });
      expect(projectPermissionWarnings(resolved)).toEqual([]);
    } finally {
      await home.remove();
      await project.remove();
    }
  });
});
