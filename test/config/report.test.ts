import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatConfigReport, loadConfig, maskSecret, parsePermissionRule } from "../../src/config/index.js";

let root: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "clio-config-report-")));
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("formatConfigReport", () => {
  it("prints one aligned line per value with its source, secrets masked", async () => {
    const userFile = path.join(root, ".clio", "config.json");
    await fs.mkdir(path.dirname(userFile), { recursive: true });
    await fs.writeFile(
      userFile,
      JSON.stringify({ apiKey: "sk-live-1234567890abcdef", permissions: { allow: ["WEB"] }, protocols: { GIT: { token: "ghp_secret_value_42", author: "Ada" } } }),
    );
    const resolved = await loadConfig({ cwd: root, homeDir: root, env: { CLIO_MODEL: "qwen" }, flags: { maxTurns: 3 } });
    const lines = formatConfigReport(resolved);
    const text = lines.join("\n");

    expect(text).not.toContain("sk-live-1234567890abcdef");
    expect(text).not.toContain("ghp_secret_value_42");
    expect(lines).toContainEqual(expect.stringMatching(/^apiKey += sk-l…cdef +\(user:.*config\.json\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^protocols\.GIT\.token += ghp_…e_42 +\(user:/));
    expect(lines).toContainEqual(expect.stringMatching(/^protocols\.GIT\.author += Ada +\(user:/));
    expect(lines).toContainEqual(expect.stringMatching(/^model += qwen +\(env:CLIO_MODEL\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^maxTurns += 3 +\(flag\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^api += chat +\(default\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^baseUrl = +\(not set\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^permissions\.allow += WEB +\(user:/));
    expect(lines).toContain(`user config:    ${userFile}`);
    expect(lines).toContain("project config: (none found in this folder or its parents)");
    const sourceColumns = new Set(lines.filter((line) => line.includes("   (")).map((line) => line.indexOf("   (")));
    expect(sourceColumns.size).toBe(1);
  });
});

describe("maskSecret", () => {
  it("keeps four characters each side of a long secret and hides a short one entirely", () => {
    expect(maskSecret("sk-abcdef123456")).toBe("sk-a…3456");
    expect(maskSecret("short")).toBe("****");
  });
});

describe("parsePermissionRule: PROTOCOL[:action[:argument-prefix-glob]]", () => {
  it.each([
    ["WEB", { protocol: "WEB" }],
    ["file_op:write", { protocol: "FILE_OP", action: "write" }],
    ["FILE_OP:*:src/*", { protocol: "FILE_OP", argumentPattern: "src/*" }],
    ["EXEC:run:npm test*", { protocol: "EXEC", action: "run", argumentPattern: "npm test*" }],
    ["EXEC:run:git log --oneline:*", { protocol: "EXEC", action: "run", argumentPattern: "git log --oneline:*" }],
  ])("%s", (text, rule) => {
    expect(parsePermissionRule(text)).toEqual(rule);
  });

  it.each(["", "1WEB", "WEB:", "EXEC:run:", "EXEC: run"])("refuses %j", (text) => {
    expect(parsePermissionRule(text)).toBeUndefined();
  });
});
