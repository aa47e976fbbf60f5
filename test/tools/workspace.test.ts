import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClioError } from "../../grammar/errors.js";
import { Workspace } from "../../tools/workspace.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
beforeEach(async () => {
  temp = await makeTempWorkspace();
});
afterEach(async () => {
  await temp.remove();
});

async function refusal(input: string, intent: "read" | "write" = "write"): Promise<ClioError> {
  try {
    await temp.workspace.resolve(input, intent);
  } catch (error) {
    if (ClioError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${input} was accepted`);
}

describe("Workspace.resolve", () => {
  it("resolves relative and absolute paths inside the root", async () => {
    await temp.write("src/main.ts", "x");
    const relative = await temp.workspace.resolve("src/main.ts");
    expect(relative).toEqual({ input: "src/main.ts", absolute: path.join(temp.root, "src/main.ts"), relative: "src/main.ts", real: path.join(temp.root, "src/main.ts") });
    const absolute = await temp.workspace.resolve(path.join(temp.root, "src/./main.ts"));
    expect(absolute.relative).toBe("src/main.ts");
    expect((await temp.workspace.resolve(".")).relative).toBe(".");
    expect((await temp.workspace.resolve("new/deep/file.txt", "write")).real).toBe(path.join(temp.root, "new/deep/file.txt"));
  });

  it("refuses `..` escapes, absolute paths outside, `~` and NUL bytes", async () => {
    expect((await refusal("../outside.txt")).code).toBe("outside_workspace");
    expect((await refusal("src/../../outside.txt")).code).toBe("outside_workspace");
    expect((await refusal("..")).code).toBe("outside_workspace");
    expect((await refusal("/etc/passwd", "read")).code).toBe("outside_workspace");
    expect((await refusal("~/.bashrc", "read")).code).toBe("outside_workspace");
    expect((await refusal("~root/x")).code).toBe("outside_workspace");
    expect((await refusal("a\0b")).code).toBe("invalid_argument");
    expect((await refusal("  ")).code).toBe("invalid_argument");
    expect((await refusal("../outside.txt")).message).toContain("outside the workspace");
  });

  it("refuses a sibling whose name merely starts with the root's", async () => {
    await fs.mkdir(`${temp.root}-evil`);
    expect((await refusal(`${temp.root}-evil/x.txt`)).code).toBe("outside_workspace");
    expect((await refusal("../project-evil/x.txt")).code).toBe("outside_workspace");
  });

  it("accepts names that only begin with two dots", async () => {
    expect((await temp.workspace.resolve("..notes", "write")).relative).toBe("..notes");
  });

  it("refuses symlinked files and folders whose real target is outside", async () => {
    await fs.writeFile(path.join(temp.base, "secret.txt"), "secret");
    await fs.symlink(path.join(temp.base, "secret.txt"), path.join(temp.root, "file-link"));
    await fs.symlink(temp.base, path.join(temp.root, "dir-link"));
    await fs.symlink("../", path.join(temp.root, "relative-link"));
    expect((await refusal("file-link", "read")).code).toBe("outside_workspace");
    expect((await refusal("dir-link/secret.txt", "read")).code).toBe("outside_workspace");
    expect((await refusal("dir-link/new.txt")).code).toBe("outside_workspace");
    expect((await refusal("dir-link/new/deep.txt")).code).toBe("outside_workspace");
    expect((await refusal("relative-link/secret.txt", "read")).code).toBe("outside_workspace");
  });

  it("refuses dangling symlinks that point outside, directly or through a chain", async () => {
    await fs.symlink(path.join(temp.base, "not-yet.txt"), path.join(temp.root, "dangling"));
    await fs.symlink("dangling", path.join(temp.root, "chain"));
    await fs.symlink(path.join(temp.base, "no-dir"), path.join(temp.root, "dangling-dir"));
    expect((await refusal("dangling")).code).toBe("outside_workspace");
    expect((await refusal("chain")).code).toBe("outside_workspace");
    expect((await refusal("dangling-dir/file.txt")).code).toBe("outside_workspace");
  });

  it("checks at call time, so a symlink created after an earlier check is caught", async () => {
    await fs.mkdir(path.join(temp.root, "out"));
    expect((await temp.workspace.resolve("out/file.txt", "write")).relative).toBe("out/file.txt");
    await fs.rm(path.join(temp.root, "out"), { recursive: true });
    await fs.symlink(temp.base, path.join(temp.root, "out"));
    expect((await refusal("out/file.txt")).code).toBe("outside_workspace");
  });

  it("allows symlinks that stay inside, reporting their real location", async () => {
    await temp.write("real/file.txt", "x");
    await fs.symlink("real", path.join(temp.root, "alias"));
    await fs.symlink("real/missing.txt", path.join(temp.root, "pending"));
    expect((await temp.workspace.resolve("alias/file.txt")).real).toBe(path.join(temp.root, "real/file.txt"));
    expect((await temp.workspace.resolve("pending", "write")).real).toBe(path.join(temp.root, "real/missing.txt"));
  });

  it("refuses symlink loops", async () => {
    await fs.symlink("b", path.join(temp.root, "a"));
    await fs.symlink("a", path.join(temp.root, "b"));
    expect((await refusal("a")).message).toContain("too many symbolic links");
  });

  it("never writes git internals or clio's state, even through a symlink or other casing", async () => {
    await fs.mkdir(path.join(temp.root, ".git"));
    await fs.symlink(".git", path.join(temp.root, "gitdir"));
    for (const input of [".git", ".git/config", "sub/.git/HEAD", ".GIT/config", ".clio/sessions/x.json", "gitdir/config", "sub/.clio/config.json", "pkg/deep/.CLIO/config.json"]) {
      expect((await refusal(input)).code, input).toBe("protected_path");
    }
    expect((await temp.workspace.resolve(".git/config", "read")).relative).toBe(".git/config");
    expect((await temp.workspace.resolve("sub/.clio-notes/ok.txt", "write")).relative).toBe("sub/.clio-notes/ok.txt");
    expect((await temp.workspace.resolve(".gitignore", "write")).relative).toBe(".gitignore");
  });

  it("accepts absolute paths written with the root as given, before symlinks were expanded", async () => {
    const alias = path.join(temp.base, "alias-root");
    await fs.symlink(temp.root, alias);
    const workspace = await Workspace.open(alias);
    expect(workspace.root).toBe(temp.root);
    expect((await workspace.resolve(path.join(alias, "a.txt"), "write")).relative).toBe("a.txt");
  });

  it("takes back only the resolutions it made itself, not a copy nor another workspace's", async () => {
    await temp.write("src/main.ts", "x");
    const resolved = await temp.workspace.resolve("src/main.ts");
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(JSON.parse(JSON.stringify(resolved))).toEqual({ ...resolved });
    expect(await temp.workspace.resolve(resolved, "write")).toBe(resolved);
    const other = await Workspace.open(temp.root);
    for (const stranger of [{ ...resolved }, await other.resolve("src/main.ts")]) {
      const error = await temp.workspace.resolve(stranger).catch((caught: unknown) => caught);
      expect(ClioError.isInstance(error) && error.code).toBe("internal_error");
    }
  });

  it("opens only existing folders", async () => {
    await expect(Workspace.open(path.join(temp.base, "missing"))).rejects.toMatchObject({ code: "not_found" });
    await temp.write("file.txt", "x");
    await expect(Workspace.open(path.join(temp.root, "file.txt"))).rejects.toMatchObject({ code: "not_a_directory" });
  });
});

describe("names too long for the file system", () => {
  it("refuses a name over 255 bytes with a clear error instead of a raw ENAMETOOLONG", async () => {
    const temporary = await makeTempWorkspace();
    try {
      const workspace = temporary.workspace;
      await expect(workspace.resolve("x".repeat(256), "write")).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining("at most 255 bytes") });
      await expect(workspace.resolve(`a/${"é".repeat(128)}`, "read")).rejects.toMatchObject({ code: "invalid_argument" });
      await expect(workspace.resolve("x".repeat(255), "write")).resolves.toMatchObject({ relative: "x".repeat(255) });
    } finally {
      await temporary.remove();
    }
  });

  it("refuses a path that only together with the root is too long, in a short message", async () => {
    const input = `${Array.from({ length: 16 }, () => "d".repeat(254)).join("/")}/x.txt`;
    expect(Buffer.byteLength(input)).toBeLessThan(4095);
    const error = await refusal(input);
    expect(error).toMatchObject({ code: "invalid_argument", message: expect.stringContaining("at most 4095") });
    expect(error.message.length).toBeLessThan(400);
  });
});

describe("control characters in paths", () => {
  it("refuses a line break, a tab or another control character, naming it", async () => {
    const temporary = await makeTempWorkspace();
    try {
      await expect(temporary.workspace.resolve("notes.txt\n", "write")).rejects.toMatchObject({ code: "invalid_argument", message: expect.stringContaining('"\\n"') });
      await expect(temporary.workspace.resolve("a\tb.txt", "read")).rejects.toMatchObject({ code: "invalid_argument" });
      await expect(temporary.workspace.resolve("bell\u0007.txt", "write")).rejects.toMatchObject({ code: "invalid_argument" });
      await expect(temporary.workspace.resolve("ünïcode and spaces.txt", "write")).resolves.toMatchObject({ relative: "ünïcode and spaces.txt" });
    } finally {
      await temporary.remove();
    }
  });
});
