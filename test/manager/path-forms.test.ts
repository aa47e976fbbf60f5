import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parameter } from "../../protocols/contract/protocol.js";
import { checkPaths, pathForms } from "../../src/manager/path-forms.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let root: string;
let workspace: Workspace;
beforeEach(async () => {
  folder = await temporaryFolder("clio-path-forms-");
  root = path.join(folder.path, "project");
  await mkdir(path.join(root, "secrets"), { recursive: true });
  await writeFile(path.join(root, "secrets", "key"), "TOP SECRET");
  await symlink("secrets", path.join(root, "config"));
  await writeFile(path.join(root, "..secret"), "odd name");
  workspace = await Workspace.open(root);
});
afterEach(() => folder.remove());

describe("pathForms", () => {
  it("resolves . and .. as the workspace does", async () => {
    expect(await pathForms(workspace, "./src/../secrets/key")).toEqual(["secrets/key"]);
    expect(await pathForms(workspace, "secrets//key/")).toEqual(["secrets/key"]);
    expect(await pathForms(workspace, "./")).toEqual(["."]);
  });

  it("adds where a symbolic link really leads", async () => {
    expect(await pathForms(workspace, "config/key")).toEqual(["config/key", "secrets/key"]);
  });

  it("reads an absolute path through the root as resolved and as given (a symlinked root)", async () => {
    const linkedRoot = path.join(folder.path, "project-link");
    await symlink(root, linkedRoot);
    const throughLink = await Workspace.open(linkedRoot);
    expect(await pathForms(throughLink, path.join(linkedRoot, "secrets", "key"))).toEqual(["secrets/key"]);
    expect(await pathForms(throughLink, path.join(throughLink.root, "secrets", "key"))).toEqual(["secrets/key"]);
  });

  it("adds the spelling with \\ read as / beside what the workspace makes of it", async () => {
    const forms = await pathForms(workspace, "a\\b/../secrets/key");
    expect(forms).toContain("secrets/key");
    expect(forms).toContain("a/secrets/key");
  });

  it("keeps a name that starts with .. inside the workspace, and the raw form of a path outside it", async () => {
    expect(await pathForms(workspace, "..secret")).toEqual(["..secret"]);
    expect(await pathForms(workspace, path.join(root, "..secret"))).toEqual(["..secret"]);
    expect(await pathForms(workspace, "../outside")).toEqual(["../outside"]);
  });
});

describe("checkPaths during a run of reads", () => {
  it("takes a remembered folder only for a path its action opens confirmed; any other path is walked afresh", async () => {
    await writeFile(path.join(root, "secrets", "other"), "also secret");
    const opened = { parameters: { path: parameter.path("a file", { opensConfirmed: true }) } } as never;
    const walked = { parameters: { path: parameter.path("a folder") } } as never;
    workspace.readRunStarted();
    try {
      await checkPaths(opened, { path: "secrets/key" }, workspace);
      // `secrets` becomes a link to a folder outside the workspace.
      const outside = path.join(folder.path, "outside");
      await mkdir(outside);
      await rename(path.join(root, "secrets"), path.join(root, "secrets-moved"));
      await symlink(outside, path.join(root, "secrets"));
      const remembered = (await checkPaths(opened, { path: "secrets/other" }, workspace)).get("secrets/other");
      expect(remembered).toMatchObject({ real: path.join(root, "secrets", "other") });
      const fresh = (await checkPaths(walked, { path: "secrets/other" }, workspace)).get("secrets/other");
      expect(fresh).toMatchObject({ code: "outside_workspace" });
    } finally {
      workspace.readRunEnded();
    }
  });
});

describe("checkPaths at once", () => {
  const definition = {
    parameters: { path: parameter.path("a file", { opensConfirmed: true }), to: parameter.path("a target"), also: parameter.path("another file", { opensConfirmed: true }) },
  } as never;
  const entries = async (found: ReturnType<typeof checkPaths>) => [...(await found).entries()].sort(([left], [right]) => left.localeCompare(right));

  it("gives the map at once when every path resolves without a walk, the same as the awaited one", async () => {
    const opened = { parameters: { path: parameter.path("a file", { opensConfirmed: true }) } } as never;
    for (const value of ["secrets/key", "config/key", "../outside", "~/notes"]) {
      const found = checkPaths(opened, { path: value }, workspace);
      expect(found).not.toBeInstanceOf(Promise);
      const awaited = await workspace.resolveCommandPath(value).catch((error: Error) => error);
      expect((found as Map<string, unknown>).get(value)).toEqual(awaited);
    }
  });

  it("waits only when a path must be walked (not there yet) or is not a command's read, and gives each its resolution or error", async () => {
    const walked = checkPaths(definition, { path: "secrets/new/file", to: "config/copy", also: "../away" }, workspace);
    expect(walked).toBeInstanceOf(Promise);
    expect(await entries(walked)).toEqual([
      ["../away", expect.objectContaining({ code: "outside_workspace" })],
      ["config/copy", expect.objectContaining({ real: path.join(root, "secrets", "copy") })],
      ["secrets/new/file", expect.objectContaining({ real: path.join(root, "secrets", "new", "file") })],
    ]);
  });
});
