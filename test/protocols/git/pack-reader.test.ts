import { randomBytes } from "node:crypto";
import * as nodeFs from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ObjectReader, type ObjectFileSystem } from "../../../tools/git/object-reader.js";
import { callGit, callGitFailing, makeSandbox, type Sandbox } from "./support.js";

let sandbox: Sandbox;
/** A repository holding `buildEditedHistory`'s commits, made once per file and copied into a test's sandbox. */
let template: Sandbox;

beforeAll(async () => {
  template = await makeSandbox();
  await buildEditedHistory(template);
});

afterAll(async () => {
  await template.cleanup();
});

beforeEach(async () => {
  sandbox = await makeSandbox();
});

afterEach(async () => {
  await sandbox.cleanup();
});

const gitdir = () => path.join(sandbox.repo, ".git");
const packFolder = () => path.join(gitdir(), "objects", "pack");

/** Twelve commits that each edit a line of a few files, so the packed history is mostly deltas. */
async function buildEditedHistory(target: Sandbox): Promise<void> {
  const lines = Array.from({ length: 60 }, (_, line) => `line ${line} of the file`);
  for (let commit = 0; commit < 12; commit++) {
    lines[(commit * 7) % lines.length] = `edited in commit ${commit}`;
    const files: Record<string, string> = {};
    for (let file = 0; file < 4; file++) files[`src/part${file}/file${file}.txt`] = `${file}\n${lines.join("\n")}\n`;
    if (commit === 5) files["notes.md"] = "# notes\n";
    await target.commit(`commit ${commit}`, files);
  }
}

/** The sandbox's repository becomes a copy of the template: the edited history, all loose objects, a clean worktree. */
async function editedHistory(): Promise<void> {
  await fs.rm(sandbox.repo, { recursive: true, force: true });
  await fs.cp(template.repo, sandbox.repo, { recursive: true });
}

/** The file with this extension of the repository's pack (there is one after a gc). */
async function packed(extension: ".idx" | ".pack"): Promise<string> {
  const [name] = (await fs.readdir(packFolder())).filter((candidate) => candidate.endsWith(extension));
  return path.join(packFolder(), name!);
}

/** Rewrites a (read-only) pack file with `change` made to its bytes. */
async function damage(file: string, change: (bytes: Buffer) => Buffer): Promise<void> {
  const bytes = change(await fs.readFile(file));
  await fs.chmod(file, 0o644);
  await fs.writeFile(file, bytes);
}

/** Every object git has, with its type and bytes, from `git cat-file --batch-all-objects`. */
async function gitObjects(): Promise<Map<string, { type: string; content: Buffer }>> {
  const { spawnSync } = await import("node:child_process");
  const out = spawnSync("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: sandbox.repo, env: sandbox.env, maxBuffer: 64 * 1024 * 1024 }).stdout;
  const objects = new Map<string, { type: string; content: Buffer }>();
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0x0a, at);
    const [oid, type, size] = out.toString("latin1", at, end).split(" ");
    objects.set(oid!, { type: type!, content: out.subarray(end + 1, end + 1 + Number(size)) });
    at = end + 1 + Number(size) + 1;
  }
  return objects;
}

async function expectSameObjects(): Promise<void> {
  const objects = await gitObjects();
  expect(objects.size).toBeGreaterThan(40);
  const reader = new ObjectReader(nodeFs as unknown as ObjectFileSystem, gitdir());
  for (const [oid, object] of objects) {
    const read = reader.read(oid);
    expect(read?.type, oid).toBe(object.type);
    expect(read!.content.equals(object.content), oid).toBe(true);
  }
  reader.close();
}

/** Counts what the reader reads: every positioned read's size, and whole-file reads. */
function countingFileSystem(): { fs: ObjectFileSystem; largestRead: () => number; total: () => number } {
  let largest = 0;
  let total = 0;
  const fs: ObjectFileSystem = {
    openSync: (file, flags) => nodeFs.openSync(file, flags),
    closeSync: (fd) => nodeFs.closeSync(fd),
    fstatSync: (fd) => nodeFs.fstatSync(fd),
    readdirSync: (folder) => nodeFs.readdirSync(folder),
    readFileSync(file) {
      const content = nodeFs.readFileSync(file);
      total += content.length;
      largest = Math.max(largest, content.length);
      return content;
    },
    readSync(fd, buffer, offset, length, position) {
      total += length;
      largest = Math.max(largest, length);
      return nodeFs.readSync(fd, buffer, offset, length, position);
    },
  };
  return { fs, largestRead: () => largest, total: () => total };
}

describe("clio's pack reader against git's own reading", () => {
  it("reads every object of a gc'd repository as git cat-file does (offset deltas, index v2)", async () => {
    await editedHistory();
    await sandbox.git(["gc", "-q", "--prune=now"]);
    expect(await fs.readdir(packFolder())).toContainEqual(expect.stringMatching(/\.pack$/));
    await expectSameObjects();
  });

  it("reads deltas against a base named by oid, and version 1 indexes", async () => {
    await editedHistory();
    await sandbox.git(["-c", "repack.useDeltaBaseOffset=false", "-c", "pack.indexVersion=1", "repack", "-adfq"]);
    expect((await fs.readFile(await packed(".idx"))).readUInt32BE(0)).not.toBe(0xff744f63);
    await expectSameObjects();
  });

  it("reads offsets from the index's 64-bit table", async () => {
    await editedHistory();
    await sandbox.git(["repack", "-adq"]);
    const packFile = await packed(".pack");
    await fs.rm(packFile.replace(/\.pack$/, ".idx"));
    // Every object past byte 0x40 gets a 64-bit offset, as in a pack larger than 2 GB.
    await sandbox.git(["index-pack", "--index-version=2,0x40", packFile]);
    await expectSameObjects();
  });

  it("reads loose objects beside packs, and a pack that appears after the reader was made", async () => {
    await editedHistory();
    const reader = new ObjectReader(nodeFs as unknown as ObjectFileSystem, gitdir());
    const head = (await sandbox.git(["rev-parse", "HEAD"])).trim();
    expect(reader.read(head)?.type).toBe("commit");
    await sandbox.git(["gc", "-q", "--prune=now"]);
    await sandbox.commit("after gc", { "late.txt": "late\n" });
    expect(reader.read(head)?.type).toBe("commit");
    expect(reader.read((await sandbox.git(["rev-parse", "HEAD:late.txt"])).trim())?.content.toString()).toBe("late\n");
    expect(reader.read("0".repeat(40))).toBeUndefined();
    expect(reader.read("HEAD")).toBeUndefined();
    reader.close();
  });

  it("never reads a whole pack: a log and a diff beside a large blob read a small part of it", async () => {
    await sandbox.commit("a large binary", { "big.bin": randomBytes(6 * 1024 * 1024) });
    await buildEditedHistory(sandbox);
    await sandbox.git(["gc", "-q", "--prune=now"]);
    const packSize = (await fs.stat(await packed(".pack"))).size;
    expect(packSize).toBeGreaterThan(6 * 1024 * 1024);
    const counting = countingFileSystem();
    const reader = new ObjectReader(counting.fs, gitdir());
    let oid: string | undefined = (await sandbox.git(["rev-parse", "HEAD"])).trim();
    let commits = 0;
    while (oid !== undefined) {
      const content = reader.read(oid)!.content.toString();
      const tree = /^tree (\w+)/.exec(content)![1]!;
      expect(reader.read(tree)?.type).toBe("tree");
      oid = /\nparent (\w+)/.exec(content)?.[1];
      commits++;
    }
    expect(commits).toBe(13);
    reader.read((await sandbox.git(["rev-parse", "HEAD:src/part1/file1.txt"])).trim());
    expect(counting.largestRead()).toBeLessThanOrEqual(256 * 1024);
    expect(counting.total()).toBeLessThan(packSize / 8);
    reader.close();
  });
});

describe("bad repositories", () => {
  it("a corrupt pack index is a clear error naming the file and how to rebuild it", async () => {
    await editedHistory();
    await sandbox.git(["gc", "-q", "--prune=now"]);
    const file = await packed(".idx");
    const index = path.basename(file);
    const whole = await fs.readFile(file);
    // The fan-out table no longer ascends.
    await damage(file, (bytes) => Buffer.from(bytes).fill(0xff, 8 + 4 * 10, 8 + 4 * 11));
    const error = await callGitFailing(sandbox, "log");
    expect(error.code).toBe("corrupt_file");
    expect(error.message).toContain(index);
    expect(error.message).toContain("fan-out");
    expect(JSON.stringify(error.hint)).toContain("git index-pack");

    await fs.writeFile(file, whole.subarray(0, 2000)); // cut short
    const cut = await callGitFailing(sandbox, "diff", { from: "HEAD~1", to: "HEAD" });
    expect(cut.code).toBe("corrupt_file");
    expect(cut.message).toContain(index);
  });

  it("an index that belongs to another pack is refused", async () => {
    await editedHistory();
    await sandbox.git(["gc", "-q", "--prune=now"]);
    await damage(await packed(".pack"), (bytes) => Buffer.from(bytes).fill(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1));
    const error = await callGitFailing(sandbox, "log");
    expect(error.code).toBe("corrupt_file");
    expect(error.message).toContain("checksum");
  });

  it("a damaged entry inside a pack is a clear corrupt_file error, not a crash or wrong content", async () => {
    await sandbox.commit("one large file", { "data.txt": `${"a line of text that compresses\n".repeat(4000)}` });
    await sandbox.git(["gc", "-q", "--prune=now"]);
    const blob = (await sandbox.git(["rev-parse", "HEAD:data.txt"])).trim();
    const { spawnSync } = await import("node:child_process");
    const listing = spawnSync("git", ["show-index"], { input: await fs.readFile(await packed(".idx")) }).stdout.toString();
    const offset = Number(
      listing
        .split("\n")
        .find((line) => line.includes(blob))!
        .split(" ")[0],
    );
    // Bytes inside the entry's zlib stream: zlib's own checksum no longer matches.
    await damage(await packed(".pack"), (bytes) => Buffer.from(bytes).fill(0x55, offset + 4, offset + 40));
    await sandbox.write("data.txt", "changed\n");
    const damaged = await callGitFailing(sandbox, "diff");
    expect(damaged.code).toBe("corrupt_file");
    expect(damaged.message).toMatch(/pack-\w+\.pack is damaged/);
  });

  it("an object missing from the pack is a clear not_found naming the object", async () => {
    await editedHistory();
    const lost = (await sandbox.git(["rev-parse", "HEAD:notes.md"])).trim();
    // Pack everything except that one blob, and drop every other copy of it.
    const objects = (await sandbox.git(["rev-list", "--objects", "--all"])).split("\n").filter((line) => line !== "" && !line.startsWith(lost));
    const { spawnSync } = await import("node:child_process");
    const packed = spawnSync("git", ["pack-objects", "-q", path.join(packFolder(), "pack")], { cwd: sandbox.repo, env: sandbox.env, input: `${objects.join("\n")}\n` });
    expect(packed.status).toBe(0);
    await sandbox.git(["prune-packed"]);
    await fs.rm(path.join(gitdir(), "objects", lost.slice(0, 2), lost.slice(2)), { force: true });
    expect(((await callGit(sandbox, "log", { count: "3" })).data as { commits: unknown[] }).commits).toHaveLength(3);
    const error = await callGitFailing(sandbox, "diff", { from: "HEAD~7", to: "HEAD~6" });
    expect(error.code).toBe("not_found");
    expect(error.message).toContain(lost);
    expect(JSON.stringify(error.hint)).toContain("git fsck");
  });

  it("a shallow clone's log stops cleanly at the shallow boundary, as git's does", async () => {
    await editedHistory();
    const clone = path.join(sandbox.base, "shallow");
    await sandbox.git(["clone", "-q", "--depth", "4", `file://${sandbox.repo}`, clone], sandbox.base);
    const shallow = { ...sandbox, repo: clone };
    const result = await callGit(shallow, "log", { count: "50" });
    const commits = (result.data as { commits: Array<{ oid: string }> }).commits.map((commit) => commit.oid);
    const expected = (await sandbox.git(["log", "--format=%H"], clone)).trim().split("\n");
    expect(commits).toEqual(expected);
    expect(commits).toHaveLength(4);
    const fileLog = await callGit(shallow, "log", { path: "src/part1/file1.txt", count: "50" });
    expect((fileLog.data as { commits: unknown[] }).commits.length).toBe((await sandbox.git(["log", "--format=%H", "--", "src/part1/file1.txt"], clone)).trim().split("\n").length);
    const beyond = await callGitFailing(shallow, "diff", { from: "HEAD~6", to: "HEAD" });
    expect(beyond.code).toBe("not_found");
    expect(beyond.message).toContain("shallow");
  });
});
