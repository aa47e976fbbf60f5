import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHttpServer, type GitHttpServer, type GitHttpServerOptions } from "../../support/git-http-server.js";
import { callGit, callGitFailing, fsckClean, gitPorcelain, makeSandbox, type Sandbox } from "./support.js";

const PASSWORD = "s3cret-Pa55word";

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

const bareHead = () => sandbox.git(["rev-parse", "main"], bare).then((out) => out.trim());
const localHead = () => sandbox.git(["rev-parse", "HEAD"]).then((out) => out.trim());

describe("GIT push, fetch and pull against a real smart-HTTP git server", () => {
  it("pushes the current branch; the server's repository has it and is consistent", async () => {
    await serve();
    const result = await callGit(sandbox, "push", {});
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
    await callGit(sandbox, "push", {});
    const other = path.join(sandbox.base, "other");
    await sandbox.git(["clone", "-q", bare, other], sandbox.base);
    await sandbox.git(["checkout", "-q", "-b", "feature"], other);
    await fs.writeFile(path.join(other, "feature.txt"), "feature\n");
    await sandbox.git(["add", "-A"], other);
    await sandbox.git(["commit", "-q", "-m", "feature"], other);
    await sandbox.git(["push", "-q", "origin", "feature"], other);
    await callGit(sandbox, "fetch", {});
    const result = await callGit(sandbox, "checkout", { branch: "feature" });
    expect(result.output).toBe("Switched to a new branch feature. 1 file changed in the worktree.");
    expect((await sandbox.git(["rev-parse", "--abbrev-ref", "feature@{upstream}"])).trim()).toBe("origin/feature");
    expect(await sandbox.read("feature.txt")).toBe("feature\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("fetches new remote commits and reports being behind, then pulls them (fast-forward)", async () => {
    await serve();
    await callGit(sandbox, "push", {});
    await commitElsewhere("remote.txt", "from elsewhere\n");
    const fetched = await callGit(sandbox, "fetch", {});
    expect(fetched.output).toContain("## main...origin/main [behind 1]");
    expect((await sandbox.git(["rev-parse", "origin/main"])).trim()).toBe(await bareHead());
    expect(await localHead()).not.toBe(await bareHead());
    const pulled = await callGit(sandbox, "pull", {});
    expect(pulled.output).toMatch(/^Fast-forwarded main to [0-9a-f]{7} \(origin\/main\)\./);
    expect(await localHead()).toBe(await bareHead());
    expect(await sandbox.read("remote.txt")).toBe("from elsewhere\n");
    expect(await gitPorcelain(sandbox)).toEqual([]);
  });

  it("pulls diverged history as a clean merge commit", async () => {
    await serve();
    await callGit(sandbox, "push", {});
    await commitElsewhere("theirs.txt", "theirs\n");
    await sandbox.write("ours.txt", "ours\n");
    await callGit(sandbox, "commit", { message: "ours", all: "true" });
    const pulled = await callGit(sandbox, "pull", { remote: "origin", branch: "main" });
    expect(pulled.output).toMatch(/^Merged origin\/main into main: merge commit/);
    expect(await sandbox.read("theirs.txt")).toBe("theirs\n");
    await callGit(sandbox, "push", {});
    expect(await bareHead()).toBe(await localHead());
    expect(await fsckClean(sandbox, bare)).toBe("");
  });

  it("a push that is not a fast-forward is rejected with a clear error, the server unchanged", async () => {
    await serve();
    await callGit(sandbox, "push", {});
    await commitElsewhere("remote.txt", "remote\n");
    const before = await bareHead();
    await sandbox.write("local.txt", "local\n");
    await callGit(sandbox, "commit", { message: "local", all: "true" });
    const error = await callGitFailing(sandbox, "push", {});
    expect(error.code).toBe("push_rejected");
    expect(error.message).toContain("not a fast-forward");
    expect(error.hint).toContain("action=pull");
    expect(await bareHead()).toBe(before);
  });

  it("wrong credentials fail clearly, and the password appears nowhere", async () => {
    await serve({ auth: { username: "alice", password: "right-password" } });
    const env = { ...sandbox.env, CLIO_GIT_USERNAME: "alice", CLIO_GIT_PASSWORD: PASSWORD };
    const error = await callGitFailing(sandbox, "push", {}, { env });
    expect(error.code).toBe("authentication_failed");
    expect(error.message).toContain("refused the credentials");
    expect(JSON.stringify({ ...error.toData(), stack: error.stack })).not.toContain(PASSWORD);
    expect(JSON.stringify(error.toData())).not.toContain(Buffer.from(`alice:${PASSWORD}`).toString("base64"));
  });

  it("credentials in the remote URL are scrubbed from errors", async () => {
    const url = await serve({ auth: { username: "alice", password: "right-password" } });
    await sandbox.git(["remote", "set-url", "origin", url.replace("http://", `http://alice:${PASSWORD}@`)]);
    const error = await callGitFailing(sandbox, "fetch", {});
    expect(error.code).toBe("authentication_failed");
    expect(JSON.stringify(error.toData())).not.toContain(PASSWORD);
    expect(error.message).toContain(url);
  });

  it("right credentials from config push, and the result does not carry them", async () => {
    await serve({ auth: { username: "alice", password: PASSWORD } });
    const result = await callGit(sandbox, "push", {}, { config: { GIT: { credentials: { username: "alice", password: PASSWORD } } } });
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(await bareHead()).toBe(await localHead());
  });

  it("the server dropping the connection mid-push is a clear network error, not a hang", async () => {
    await serve({
      intercept(request) {
        if (request.method !== "POST") return false;
        request.socket.destroy();
        return true;
      },
    });
    const error = await callGitFailing(sandbox, "push", {}, { config: { GIT: { networkTimeoutMs: 5000 } } });
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
    const error = await callGitFailing(sandbox, "fetch", {}, { config: { GIT: { networkTimeoutMs: 300 } } });
    expect(error.code).toBe("network_error");
    expect(error.message).toContain("did not answer");
    await connectionClosed;
  });

  it("cancelling the turn stops a stalled transfer at once", async () => {
    await serve({ intercept: (request) => request.method === "POST" });
    await commitElsewhere("remote.txt", "remote\n");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await callGitFailing(sandbox, "fetch", {}, { signal: controller.signal, config: { GIT: { networkTimeoutMs: 60_000 } } });
    expect(error.code).toBe("cancelled");
  });

  it("a server that has gone away is a clear network error", async () => {
    await serve();
    await server!.close();
    server = undefined;
    const error = await callGitFailing(sandbox, "pull", {});
    expect(error.code).toBe("network_error");
    expect(error.hint).toContain("reachable");
  });
});
