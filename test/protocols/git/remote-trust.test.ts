/**
 * Where GIT's network goes and where its credentials go: WEB's address guard on every request
 * and redirect, credentials only over https to hosts the person named. Servers are real and on
 * 127.0.0.1; refusals of other addresses are proved in a loopback-only namespace
 * (remote-namespace.test.ts).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGitProtocol } from "../../../protocols/git.js";
import type { Resolver } from "../../../tools/network/guard.js";
import { createNodeTransport } from "../../../tools/network/transport.js";
import { startGitHttpServer, type GitHttpServer, type GitHttpServerOptions } from "../../support/git-http-server.js";
import { callGit, callGitFailing, makeSandbox, type Sandbox } from "./support.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "web");
const TOKEN = "ghp_person-secret-token-123";

let tls: { key: Buffer; cert: Buffer };
let sandbox: Sandbox;
let servers: GitHttpServer[] = [];
let authorizationsSeen: string[] = [];

beforeAll(async () => {
  tls = { key: await fs.readFile(path.join(FIXTURES, "tls-key.pem")), cert: await fs.readFile(path.join(FIXTURES, "tls-cert.pem")) };
});
beforeEach(async () => {
  sandbox = await makeSandbox();
  const bare = path.join(sandbox.base, "server", "project.git");
  await fs.mkdir(bare, { recursive: true });
  await sandbox.git(["init", "-q", "--bare", "-b", "main"], bare);
  await sandbox.git(["config", "http.receivepack", "true"], bare);
  await sandbox.commit("base", { "README.md": "# project\n" });
  authorizationsSeen = [];
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await sandbox.cleanup();
});

async function serve(options: Partial<GitHttpServerOptions> = {}): Promise<GitHttpServer> {
  const server = await startGitHttpServer({
    projectRoot: path.join(sandbox.base, "server"),
    env: sandbox.env,
    ...options,
    intercept(request, response) {
      if (request.headers.authorization) authorizationsSeen.push(`${request.socket.localPort}`);
      return options.intercept?.(request, response) ?? false;
    },
  });
  servers.push(server);
  return server;
}

/** The certificate names pinned.test; this resolver sends that name to 127.0.0.1. */
const resolve: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
const protocol = () => createGitProtocol({ resolve, transport: createNodeTransport({ ca: tls.cert }) });
const port = (server: GitHttpServer) => new URL(server.url).port;
const envWithToken = () => ({ ...sandbox.env, GIT_TOKEN: TOKEN });
const bareHead = () => sandbox.git(["rev-parse", "main"], path.join(sandbox.base, "server", "project.git")).then((out) => out.trim());

describe("GIT credentials go only over https to hosts the person named", () => {
  it("sends the environment token to a named https host, and the push lands", async () => {
    const server = await serve({ tls, auth: { username: "x-access-token", password: TOKEN } });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(server)}/project.git`]);
    const config = { GIT: { allowHosts: ["pinned.test"], credentials: { hosts: ["pinned.test"] } } };
    const result = await callGit(sandbox, "push", {}, { config, env: envWithToken(), protocol: protocol() });
    expect(result.output).toMatch(/^Pushed main to origin/);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(await bareHead()).toBe((await sandbox.git(["rev-parse", "HEAD"])).trim());
  });

  it("sends nothing when no host is named, and says how to name it", async () => {
    const server = await serve({ tls, auth: { username: "x-access-token", password: TOKEN } });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(server)}/project.git`]);
    const error = await callGitFailing(sandbox, "push", {}, { config: { GIT: { allowHosts: ["pinned.test"] } }, env: envWithToken(), protocol: protocol() });
    expect(error.code).toBe("authentication_failed");
    expect(error.message).toContain("none were sent because pinned.test is not one of the hosts you named");
    expect(error.hint).toContain('"credentials": {"hosts": ["pinned.test"]}');
    expect(authorizationsSeen).toEqual([]);
  });

  it("sends nothing to a host the repository's remote names when the person named another", async () => {
    const server = await serve({ tls, auth: { username: "x-access-token", password: TOKEN } });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(server)}/project.git`]);
    const config = { GIT: { allowHosts: ["pinned.test"], credentials: { hosts: ["github.com"] } } };
    const error = await callGitFailing(sandbox, "fetch", {}, { config, env: envWithToken(), protocol: protocol() });
    expect(error.code).toBe("authentication_failed");
    expect(error.message).toContain("(github.com)");
    expect(authorizationsSeen).toEqual([]);
  });

  it("never sends credentials over plain http, even to a named host", async () => {
    const server = await serve({ auth: { username: "x-access-token", password: TOKEN } });
    await sandbox.git(["remote", "add", "origin", `${server.url}/project.git`]);
    const config = { GIT: { allowHosts: ["127.0.0.1"], credentials: { hosts: ["127.0.0.1"] } } };
    const error = await callGitFailing(sandbox, "fetch", {}, { config, env: envWithToken() });
    expect(error.code).toBe("authentication_failed");
    expect(error.message).toContain("only over https");
    expect(authorizationsSeen).toEqual([]);
  });

  it("wrong credentials fail clearly, and the password appears nowhere", async () => {
    const server = await serve({ tls, auth: { username: "alice", password: "right-password" } });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(server)}/project.git`]);
    const config = { GIT: { allowHosts: ["pinned.test"], credentials: { username: "alice", password: TOKEN, hosts: ["pinned.test"] } } };
    const error = await callGitFailing(sandbox, "push", {}, { config, protocol: protocol() });
    expect(error.code).toBe("authentication_failed");
    expect(error.message).toContain("refused the credentials");
    expect(JSON.stringify({ ...error.toData(), stack: error.stack })).not.toContain(TOKEN);
    expect(JSON.stringify(error.toData())).not.toContain(Buffer.from(`alice:${TOKEN}`).toString("base64"));
  });

  it("credentials in the remote URL are scrubbed from errors", async () => {
    const server = await serve({ auth: { username: "alice", password: "right-password" } });
    const url = `${server.url}/project.git`;
    await sandbox.git(["remote", "add", "origin", url.replace("http://", `http://alice:${TOKEN}@`)]);
    const error = await callGitFailing(sandbox, "fetch", {}, { config: { GIT: { allowHosts: ["127.0.0.1"] } } });
    expect(error.code).toBe("authentication_failed");
    expect(JSON.stringify(error.toData())).not.toContain(TOKEN);
    expect(error.message).toContain(url);
  });
});

describe("GIT's network has WEB's address guard", () => {
  it("does not contact a remote on this machine unless the person allowed its host", async () => {
    const server = await serve();
    await sandbox.git(["remote", "add", "origin", `${server.url}/project.git`]);
    const error = await callGitFailing(sandbox, "fetch", {});
    expect(error.code).toBe("blocked_address");
    expect(error.message).toContain("127.0.0.1 is loopback (this machine)");
    expect(error.hint).toContain("GIT.allowHosts");
    expect(server.requests).toEqual([]);
  });

  it("re-checks every redirect: an allowed host redirecting to a blocked one is refused there", async () => {
    const target = await serve();
    const redirector = await serve({
      tls,
      intercept(_request, response) {
        response.writeHead(302, { location: `${target.url}/project.git/info/refs?service=git-upload-pack` });
        response.end();
        return true;
      },
    });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(redirector)}/project.git`]);
    const error = await callGitFailing(sandbox, "fetch", {}, { config: { GIT: { allowHosts: ["pinned.test"] } }, protocol: protocol() });
    expect(error.code).toBe("blocked_address");
    expect(redirector.requests.length).toBe(1);
    expect(target.requests).toEqual([]);
  });

  it("follows a redirect to an allowed host, dropping the Authorization header when the origin changes", async () => {
    const target = await serve();
    const redirector = await serve({
      tls,
      auth: { username: "x-access-token", password: TOKEN },
      intercept(request, response) {
        if (!request.headers.authorization) return false;
        response.writeHead(307, { location: `${target.url}${request.url}` });
        response.end();
        return true;
      },
    });
    await sandbox.git(["remote", "add", "origin", `https://pinned.test:${port(redirector)}/project.git`]);
    const config = { GIT: { allowHosts: ["pinned.test", "127.0.0.1"], credentials: { hosts: ["pinned.test"] } } };
    await callGit(sandbox, "fetch", {}, { config, env: envWithToken(), protocol: protocol() });
    expect(target.requests.length).toBeGreaterThan(0);
    expect(authorizationsSeen).toContain(port(redirector));
    expect(authorizationsSeen).not.toContain(port(target));
  });
});
