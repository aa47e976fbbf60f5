/**
 * A long script of reads takes the quick ways (remembered folders, reads at once, kept gutters,
 * rules looked at once per action); every bad read in it must still fail exactly as it fails alone:
 * a path a deny rule refuses, a link leading outside, a binary file, a missing file, a folder,
 * odd spellings, and a folder swapped for a link outside part-way through.
 */
import { renameSync, symlinkSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandResult } from "../../src/manager/result.js";
import { replayScript } from "../../src/replay/replay.js";
import { createRuntime } from "../../src/runtime.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let outside: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder("clio-long-script-");
  outside = await temporaryFolder("clio-long-script-outside-");
  await writeFile(path.join(outside.path, "secret.txt"), "outside\n");
  await mkdir(path.join(folder.path, "src/a"), { recursive: true });
  await mkdir(path.join(folder.path, "secrets"));
  for (let index = 0; index < 20; index++) await writeFile(path.join(folder.path, `src/a/f${index}.ts`), `one ${index}\r\ntwo\n${"x".repeat(index * 300)}\n`);
  await writeFile(path.join(folder.path, "secrets/key.txt"), "denied\n");
  await writeFile(path.join(folder.path, "src/a/image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  await writeFile(path.join(folder.path, "src/a/nul.bin"), Buffer.from("text\0more"));
  await writeFile(path.join(folder.path, "src/a/empty.txt"), "");
  await symlink(outside.path, path.join(folder.path, "src/out"));
  await symlink(path.join(outside.path, "secret.txt"), path.join(folder.path, "src/a/link.txt"));
  await symlink("f1.ts", path.join(folder.path, "src/a/inside-link.ts"));
});
afterEach(async () => {
  await folder.remove();
  await outside.remove();
});

const odd = [
  "src/a/missing.ts",
  "src/out/secret.txt",
  "src/a/link.txt",
  "src/a/inside-link.ts",
  "src/a/image.png",
  "src/a/nul.bin",
  "src/a/empty.txt",
  "secrets/key.txt",
  "./src/a/f1.ts",
  "src//a/f2.ts",
  "src/a/../a/f3.ts",
  "/etc/passwd",
  "../x",
  "src/a",
  "src/nofolder/x.ts",
];

/** What a result says, without its sequence number and timing. */
function shown({ id: _id, durationMs: _duration, line: _line, column: _column, ...rest }: CommandResult) {
  return rest;
}

async function runtimeHere() {
  return createRuntime({ workspace: folder.path, permissionMode: "plan", rules: { deny: ["FILE_OP:read:secrets/*"] } });
}

describe("a long script of reads", () => {
  it("fails each bad read as it fails alone, and reads every good one as it reads alone", async () => {
    const paths = Array.from({ length: 600 }, (_, index) => (index % 5 === 2 ? odd[Math.floor(index / 5) % odd.length]! : `src/a/f${index % 20}.ts`));
    const script = paths.map((relative) => `[FILE_OP:action=read:path=${Buffer.from(relative).toString("base64")}]`).join("\n");
    const long = await runtimeHere();
    const { results } = await replayScript(script, long.manager);
    await long.manager.dispose();
    expect(results).toHaveLength(paths.length);
    const codes = new Set(results.map((result) => result.error?.code));
    for (const code of ["binary_file", "not_a_file", "not_found", "outside_workspace", "permission_denied", undefined]) expect(codes).toContain(code);
    // Each distinct command once more, alone, in a fresh runtime (nothing remembered).
    for (const [index, relative] of paths.slice(0, odd.length * 5).entries()) {
      const alone = await runtimeHere();
      const [single] = (await replayScript(`[FILE_OP:action=read:path=${Buffer.from(relative).toString("base64")}]`, alone.manager)).results;
      await alone.manager.dispose();
      expect(shown(results[index]!), relative).toEqual(shown(single!));
    }
  });

  it("refuses reads in a folder swapped for a link outside part-way through, and reads nothing there", async () => {
    const before = Array.from({ length: 200 }, (_, index) => `src/a/f${index % 20}.ts`);
    const script = [...before, ...before].map((relative) => `[FILE_OP:action=read:path="${relative}"]`).join("\n");
    const runtime = await runtimeHere();
    let seen = 0;
    await writeFile(path.join(outside.path, "f1.ts"), "outside f1\n");
    const results: CommandResult[] = [];
    await replayScript(script, runtime.manager, {
      keepResults: false,
      onResult: (result) => {
        results.push(result);
        // Synchronously, between two reads of the run: the folder the run remembered becomes a link outside.
        if (++seen === 250) {
          const source = path.join(folder.path, "src/a");
          renameSync(source, `${source}-old`);
          symlinkSync(outside.path, source);
        }
      },
    });
    await runtime.manager.dispose();
    const after = results.slice(250 + 32);
    expect(after.length).toBeGreaterThan(0);
    for (const result of after) {
      expect(result.ok).toBe(false);
      expect(result.output).not.toContain("outside f1");
      expect(["outside_workspace", "not_found"], result.error?.message).toContain(result.error?.code);
    }
    expect(after.some((result) => result.error?.code === "outside_workspace")).toBe(true);
    expect(results.slice(0, 250).every((result) => result.ok)).toBe(true);
  });
});
