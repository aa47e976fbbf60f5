import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHttpServer, type GitHttpServer, type GitHttpServerOptions } from "../../support/git-http-server.js";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, type CallOptions, type Sandbox } from "./support.js";

let sandbox: Sandbox;
let server: GitHttpServer | undefined;
let bare: string;

beforeEach(async () => {
  sandbox = await makeSandbox();
  bare = path.join(sandbox.base, "server", "project.git");
  await fs.mkdir(bare, { recursive: true });
  await sandbox.git(["init", "-q", "--bare", "-b", "main"], bare);
  await sandbox.git(["config", "http.receivepack", "true"], bare);
  await sandbox.commit("base", { "README.md": "# project\n" });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await sandbox.cleanup();
});

async function serve(options: Partial<GitHttpServerOptions> = {}): Promise<string> {
  server = await startGitHttpServer({ projectRoot: path.dirname(bare), env: sandbox.env, ...options });
  const url = `${server.url}/project.git`;
  await sandbox.git(["remote", "add", "origin", url]);
  return url;
}

/** A second clone (over the file system, by real git) that pushes a commit to the server's repository. */
async function commitElsewhere(file: string, content: string): Promise<void> {
  const other = path.join(sandbox.base, `other-${file}`);
  await sandbox.git(["clone", "-q", bare, other], sandbox.base);
  await fs.writeFile(path.join(other, file), content);
  await sandbox.git(["add", "-A"], other);
  await sandbox.git(["commit", "-q", "-m", `elsewhere: ${file}`], other);
  await sandbox.git(["push", "-q", "origin", "HEAD:main"], other);
}

/** The test server is on 127.0.0.1, which GIT reaches only because the person allowed that host. */
function loopbackAllowed(options: CallOptions): CallOptions {
  const git = (options.config?.GIT ?? {}) as Record<string, unknown>;
  return { ...options, config: { ...options.config, GIT: { allowHosts: ["127.0.0.1"], ...git } } };
}
const remoteCall = (action: string, raw: Record<string, string> = {}, options: CallOptions = {}) => callGit(sandbox, action, raw, loopbackAllowed(options));
const remoteCallFailing = (action: string, raw: Record<string, string> = {}, options: CallOptions = {}) => callGitFailing(sandbox, action, raw, loopbackAllowed(options));

const bareHead = () => sandbox.git(["rev-parse", "main"], bare).then((out) => out.trim());
const localHead = () => sandbox.git(["rev-parse", "HEAD"]).then((out) => out.trim());

describe("GIT push, fetch and pull against a real smart-HTTP git server", () => {
  it("pushes the current branch; the server's repository has it and is consistent", async () => {
    await serve();
    const result = await remoteCall("push", {});
    expect(result.permission).toBe("network");
    expect(result.described).toBe("Pushing the current branch to origin");
    expect(result.output).toMatch(/^Pushed main to origin \([0-9a-f]{7}\)\.$/);
    expect(await bareHead()).toBe(await localHead());
    expect(await fsckClean(sandbox, bare)).toBe("");
    expect(server!.requests.some((line) => line.startsWith("POST /project.git/git-receive-pack"))).toBe(true);
    expect((await sandbox.git(["rev-parse", "--abbrev-ref", "main@{upstream}"])).trim()).toBe("origin/main");
  });

  it("checking out a branch that exists only on the remote creates it, tracking the remote one", async () => {
    await serve();
    await remoteCall("push", {});
    const other = path.join(sandbox.base, "other");
    await sandbox.git(["clone", "-q", bare, other], sandbox.base);
    await sandbox.git(["checkout", "-q", "-b", "feature"], other);
    await fs.writeFile(path.join(other, "feature.txt"), "feature\n");
    await sandbox.git(["add", "-A"], other);
    await sandbox.git(["commit", "-q", "-m", "feature"], other);
    await sandbox.git(["push", "-q", "origin", "feature"], other);
    await remoteCall("fetch", {});
    const result = await remoteCall("checkout", { branch: "feature" });
    expect(result.output).toBe("Switched to a new branch feature. 1 file changed in the worktree.");
    expect((await sandbox.git(["rev-parse", "--abbrev-ref", "feature@{upstream}"])).trim()).toBe("origin/feature");
    expect(await sandbox.read("feature.txt")).toBe("feature\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("fetches new remote commits and reports being behind, then pulls them (fast-forward)", async () => {
    await serve();
    await remoteCall("push", {});
    await commitElsewhere("remote.txt", "from elsewhere\n");
    const fetched = await remoteCall("fetch", {});
    expect(fetched.output).toContain("## main...origin/main [behind 1]");
    expect((await sandbox.git(["rev-parse", "origin/main"])).trim()).toBe(await bareHead());
    expect(await localHead()).not.toBe(await bareHead());
    const pulled = await remoteCall("pull", {});
    expect(pulled.output).toMatch(/^Fast-forwarded main to [0-9a-f]{7} \(origin\/main\)\./);
    expect(await localHead()).toBe(await bareHead());
    expect(await sandbox.read("remote.txt")).toBe("from elsewhere\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("pulls diverged history as a clean merge commit", async () => {
    await serve();
    await remoteCall("push", {});
    await commitElsewhere("theirs.txt", "theirs\n");
    await sandbox.write("ours.txt", "ours\n");
    await remoteCall("commit", { message: "ours", all: "true" });
    const pulled = await remoteCall("pull", { remote: "origin", branch: "main" });
    expect(pulled.output).toMatch(/^Merged origin\/main into main: merge commit/);
    expect(await sandbox.read("theirs.txt")).toBe("theirs\n");
    await remoteCall("push", {});
    expect(await bareHead()).toBe(await localHead());
    expect(await fsckClean(sandbox, bare)).toBe("");
  });

  it("a push that is not a fast-forward is rejected with a clear error, the server unchanged", async () => {
    await serve();
    await remoteCall("push", {});
    await commitElsewhere("remote.txt", "remote\n");
    const before = await bareHead();
    await sandbox.write("local.txt", "local\n");
    await remoteCall("commit", { message: "local", all: "true" });
    const error = await remoteCallFailing("push", {});
    expect(error.code).toBe("push_rejected");
    expect(error.message).toContain("not a fast-forward");
    expect(error.hint).toContain("action=pull");
    expect(await bareHead()).toBe(before);
  });

  it("the server dropping the connection mid-push is a clear network error, not a hang", async () => {
    await serve({
      intercept(request) {
        if (request.method !== "POST") return false;
        request.socket.destroy();
        return true;
      },
    });
    const error = await remoteCallFailing("push", {}, { config: { GIT: { networkTimeoutMs: 5000 } } });
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("origin");
  });

  it("a server that stalls mid-fetch is cut off by the idle timeout, and the connection is closed", async () => {
    let connectionClosed: Promise<void> | undefined;
    await serve({
      intercept(request) {
        if (request.method !== "POST") return false;
        connectionClosed = new Promise((resolve) => request.socket.once("close", () => resolve()));
        return true;
      },
    });
    await commitElsewhere("remote.txt", "remote\n");
    const error = await remoteCallFailing("fetch", {}, { config: { GIT: { networkTimeoutMs: 300 } } });
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("did not answer");
    await connectionClosed;
  });

  it("cancelling the turn stops a stalled transfer at once", async () => {
    await serve({ intercept: (request) => request.method === "POST" });
    await commitElsewhere("remote.txt", "remote\n");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await remoteCallFailing("fetch", {}, { signal: controller.signal, config: { GIT: { networkTimeoutMs: 60_000 } } });
    expect(error.code).toBe("cancelled");
  });

  it("a server that has gone away is a clear network error", async () => {
    await serve();
    await server!.close();
    server = undefined;
    const error = await remoteCallFailing("pull", {});
    expect(error.code).toBe("network_error");
    expect(error.hint).toContain("listening");
  });
});
