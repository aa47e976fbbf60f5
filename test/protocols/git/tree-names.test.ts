import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTree } from "../../../tools/git/object-parse.js";

const OID = "0123456789abcdef0123456789abcdef01234567";

/** A tree object's bytes holding one file entry named `name`. */
function treeWith(name: string): Buffer {
  return Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(OID, "hex")]);
}

function refused(name: string): boolean {
  try {
    parseTree("tree-under-test", treeWith(name));
    return false;
  } catch (error) {
    if (!/git refuses to check out/.test((error as Error).message)) throw error;
    return true;
  }
}

/** git's verify_path, as the reader has always applied it (written out here as the reference). */
function refusedByGit(name: string): boolean {
  if (name === "" || name.includes("/") || name.includes("\\")) return true;
  const hfs = name.replace(/[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g, "");
  if (hfs === "." || hfs === "..") return true;
  const ntfs = hfs
    .split(":")[0]!
    .toLowerCase()
    .replace(/[. ]+$/, "");
  return ntfs === ".git" || /^\.?git~[1-9]$/.test(ntfs);
}

describe("tree entry names git refuses to check out", () => {
  it("refuses .git in any spelling NTFS or HFS+ reads as .git, and path tricks", () => {
    for (const name of [
      ".git",
      ".GIT",
      ".Git.",
      ".git ",
      ".git. .",
      ".git:stream",
      "git~1",
      "GIT~9",
      ".git~1",
      "\u200C.git",
      ".g\u200Cit",
      "\uFEFFgit~2",
      ".",
      "..",
      "\u200D..",
      "a/b",
      "a\\b",
      "",
    ])
      expect(refused(name), JSON.stringify(name)).toBe(true);
  });

  it("reads ordinary names, also ones that start like .git", () => {
    for (const name of ["file.ts", ".gitignore", ".github", "git", "github", "git~0", "git~10", "Gitfile", "...", "été", "\u00e9.git", "x.git"])
      expect(refused(name), JSON.stringify(name)).toBe(false);
  });

  it("agrees with git's rule on any name", () => {
    const pieces = fc.constantFrom(".", "g", "G", "i", "t", "~", "1", ":", " ", "a", "é", "\u200C", "\uFEFF", "\\", "/", "git", ".git");
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), fc.string({ maxLength: 6 }), (parts, tail) => {
        const name = parts.join("") + tail;
        if (name.includes("\0")) return;
        expect(refused(name)).toBe(refusedByGit(name));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("tree entry modes, read from the bytes", () => {
  const typeOf: Record<string, string> = { "40000": "tree", "040000": "tree", "100644": "blob", "100755": "blob", "120000": "blob", "160000": "commit" };
  const spelling = fc.constantFrom(
    "40000",
    "040000",
    "100644",
    "100755",
    "120000",
    "160000",
    "0100644",
    "10063>",
    "1006",
    "10064",
    "644",
    "",
    "100644\0",
    "1e5",
    "4e4",
    "00040000",
  );
  const name = fc.stringMatching(/^[a-z0-9._-]{1,12}$/).filter((text) => !refusedByGit(text));

  it("gives git's mode and type for every mode git writes, and refuses every other spelling as damaged", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spelling, name, fc.uint8Array({ minLength: 20, maxLength: 20 })), { minLength: 1, maxLength: 8 }), (entries) => {
        const bytes = Buffer.concat(entries.flatMap(([mode, entryName, oid]) => [Buffer.from(`${mode} ${entryName}\0`, "latin1"), Buffer.from(oid)]));
        const valid = entries.every(([mode]) => typeOf[mode] !== undefined);
        if (!valid) {
          expect(() => parseTree("tree-under-test", bytes)).toThrow(/cannot be read/);
          return;
        }
        expect(parseTree("tree-under-test", bytes)).toEqual(
          entries.map(([mode, entryName, oid]) => ({ mode: mode === "40000" ? "040000" : mode, path: entryName, oid: Buffer.from(oid).toString("hex"), type: typeOf[mode] })),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("says an entry is cut short when its name or oid runs past the end", () => {
    for (const bytes of [Buffer.from("100644"), Buffer.from("100644 name"), Buffer.concat([Buffer.from("100644 name\0"), Buffer.alloc(19)])])
      expect(() => parseTree("tree-under-test", bytes)).toThrow(/cut short/);
  });
});
