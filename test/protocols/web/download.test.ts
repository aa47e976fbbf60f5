import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { webProtocol } from "../../../protocols/web.js";
import { environmentFor, makeWorkspace, run, startServer, type TestServer, type TestWorkspace } from "./support.js";

let server: TestServer;
let workspace: TestWorkspace;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

beforeEach(async () => {
  workspace = await makeWorkspace();
});

afterEach(async () => {
  await workspace.remove();
});

const download = (urlPath: string, target: string, web: Record<string, unknown> = {}) =>
  run(webProtocol, "download", { url: `${server.origin}${urlPath}`, path: target }, environmentFor(workspace.workspace, { allowHosts: ["127.0.0.1"], ...web }));

describe("WEB.download", () => {
  it("saves the file into the workspace, creating folders, and describes the download", async () => {
    const { result, error, description } = await download("/file.bin", "data/blob.bin");
    expect(error).toBeUndefined();
    expect(description).toBe(`Downloading ${server.origin}/file.bin to data/blob.bin`);
    expect(result?.output).toContain("Saved 200 KB to data/blob.bin.");
    const saved = await fs.readFile(path.join(workspace.root, "data/blob.bin"));
    expect(saved.equals(Buffer.alloc(200 * 1024, 7))).toBe(true);
    expect(await workspace.files()).toEqual(["data", "data/blob.bin"]);
  });

  it("replaces an existing file and says so", async () => {
    await fs.writeFile(path.join(workspace.root, "old.bin"), "old");
    const { result } = await download("/file.bin", "old.bin");
    expect(result?.output).toContain("(replaced the existing file)");
    expect((await fs.stat(path.join(workspace.root, "old.bin"))).size).toBe(200 * 1024);
  });

  it("stops at the size limit and leaves nothing behind, not even a partial file or the folder it made", async () => {
    const { error } = await download("/endless.bin", "big/endless.bin", { downloadMaxBytes: 512 * 1024 });
    expect(error?.code).toBe("too_large");
    expect(error?.message).toContain("larger than the 512 KB limit");
    expect(error?.hint).toContain("WEB.downloadMaxBytes");
    expect(await workspace.files()).toEqual([]);
  });

  it("leaves an existing file untouched when the download fails", async () => {
    await fs.writeFile(path.join(workspace.root, "keep.txt"), "keep me");
    const { error } = await download("/trickle", "keep.txt", { downloadTimeoutMs: 300 });
    expect(error?.code).toBe("timeout");
    expect(await fs.readFile(path.join(workspace.root, "keep.txt"), "utf8")).toBe("keep me");
    expect(await workspace.files()).toEqual(["keep.txt"]);
  });

  it("saves nothing for an error status", async () => {
    const { error } = await download("/missing", "missing.html");
    expect(error?.code).toBe("http_error");
    expect(error?.message).toContain("404 Not Found; nothing was saved");
    expect(await workspace.files()).toEqual([]);
  });

  it("refuses a path outside the workspace before any request is made", async () => {
    const before = server.requests.length;
    const outside = path.join(os.tmpdir(), `clio-web-escape-${process.pid}.bin`);
    for (const target of ["../escape.bin", outside, "~/escape.bin"]) {
      const { error } = await download("/file.bin", target);
      expect(error?.code, target).toBe("outside_workspace");
    }
    expect(server.requests.length).toBe(before);
    await expect(fs.stat(outside)).rejects.toThrow();
    await expect(fs.stat(path.join(workspace.root, "..", "escape.bin"))).rejects.toThrow();
  });

  it("refuses to write into git internals and onto a folder, before any request", async () => {
    await fs.mkdir(path.join(workspace.root, "folder"));
    const before = server.requests.length;
    expect((await download("/file.bin", ".git/hooks/pre-commit")).error?.code).toBe("protected_path");
    expect((await download("/file.bin", "folder")).error?.code).toBe("not_a_file");
    expect(server.requests.length).toBe(before);
  });
});
