import { promises as fs } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClioError } from "../../grammar/errors.js";
import { FileTools } from "../../tools/files/index.js";
import { makeTempWorkspace, type TempWorkspace } from "./temp.js";

let temp: TempWorkspace;
beforeAll(async () => {
  temp = await makeTempWorkspace();
  await fs.mkdir(path.join(temp.base, "outside"));
  await fs.mkdir(`${temp.root}-evil`);
  await temp.write("a/b/file.txt", "x");
  await temp.write(".git/config", "x");
  await fs.symlink("a", path.join(temp.root, "in"));
  await fs.symlink(path.join(temp.base, "outside"), path.join(temp.root, "out"));
  await fs.symlink(path.join(temp.base, "outside", "missing"), path.join(temp.root, "dangle"));
  await fs.symlink("../..", path.join(temp.root, "a", "up"));
  await fs.symlink(".git", path.join(temp.root, "gitlink"));
});
afterAll(async () => {
  await temp.remove();
});

const segment = fc.constantFrom("..", ".", "a", "b", "file.txt", "in", "out", "dangle", "up", "gitlink", ".git", ".clio", "new", "~", "project", "project-evil", "");

describe("workspace confinement (property)", () => {
  it("never resolves a path for writing whose real location is outside the root or protected", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.constantFrom("", "/", `${temp.root}/`, `${temp.base}/`), async (segments, prefix) => {
        const input = prefix + segments.join("/");
        try {
          const resolved = await temp.workspace.resolve(input, "write");
          expect(temp.workspace.contains(resolved.absolute)).toBe(true);
          expect(temp.workspace.contains(resolved.real)).toBe(true);
          expect(resolved.real.startsWith(path.join(temp.base, "outside"))).toBe(false);
          expect(temp.workspace.isProtected(temp.workspace.relativeOf(resolved.real))).toBe(false);
        } catch (error) {
          if (!ClioError.isInstance(error)) throw error;
          expect(["outside_workspace", "protected_path", "invalid_argument"]).toContain(error.code);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("never lets FileTools.write change anything outside the root or in .git", async () => {
    const files = new FileTools(temp.workspace);
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom("", "/", `${temp.root}/`, `${temp.base}/`), async (segments, prefix) => {
        await files.write(prefix + segments.join("/"), "written").catch((error: unknown) => {
          if (!ClioError.isInstance(error)) throw error;
        });
      }),
      { numRuns: 200 },
    );
    expect(await fs.readdir(path.join(temp.base, "outside"))).toEqual([]);
    expect(await fs.readdir(`${temp.root}-evil`)).toEqual([]);
    expect((await fs.readdir(temp.base)).sort()).toEqual(["outside", "project", "project-evil"]);
    expect(await fs.readdir(path.join(temp.root, ".git"))).toEqual(["config"]);
    expect(await temp.read(".git/config")).toBe("x");
  });
});

describe("lexical resolution (property)", () => {
  it("gives what path.resolve and path.relative give for every spelling, normal or not", () => {
    const { workspace, root } = temp;
    const real = workspace.root;
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("", "/", "./", `${root}/`, `${real}/`),
        fc.constantFrom("", "/"),
        (segments, prefix, suffix) => {
          const input = prefix + segments.join("/") + suffix;
          let resolved: { absolute: string; relative: string } | undefined;
          try {
            resolved = workspace.resolveLexically(input);
          } catch (error) {
            if (!ClioError.isInstance(error)) throw error;
            expect(["outside_workspace", "invalid_argument"]).toContain(error.code);
            return;
          }
          const underGiven = path.isAbsolute(input) && input.startsWith(`${root}/`) && root !== real ? path.join(real, path.relative(root, path.resolve(input))) : undefined;
          const absolute = underGiven ?? path.resolve(real, input);
          expect(resolved.absolute).toBe(absolute);
          expect(resolved.relative).toBe(path.relative(real, absolute) || ".");
        },
      ),
      { numRuns: 1000 },
    );
  });
});
