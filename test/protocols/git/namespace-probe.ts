/**
 * Run by remote-namespace.test.ts inside a loopback-only network namespace: GIT.fetch against
 * remotes on a metadata address, a private network, an IPv6 link-local address, a name that
 * resolves to the metadata address, and an allowed loopback server that redirects to the
 * metadata address. Prints each remote's error code and message as JSON.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createGitProtocol } from "../../../protocols/git.js";
import type { Resolver } from "../../../tools/network/guard.js";
import { Workspace } from "../../../tools/workspace.js";
import { environmentFor, invoke } from "../invoke.js";

const run = promisify(execFile);
const repo = await fs.mkdtemp(path.join(os.tmpdir(), "clio-git-namespace-"));
const env = { PATH: process.env.PATH, HOME: repo, GIT_CONFIG_NOSYSTEM: "1" };
const requests: string[] = [];
const server = http.createServer((request, response) => {
  requests.push(`${request.method} ${request.url}`);
  response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/project.git/info/refs?service=git-upload-pack" });
  response.end();
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const remotes: Record<string, string> = {
  metadata: "http://169.254.169.254/project.git",
  private: "http://10.0.0.1/project.git",
  linklocal6: "http://[fe80::1]/project.git",
  named: "http://metadata.test/project.git",
  redirect: `http://127.0.0.1:${(server.address() as AddressInfo).port}/project.git`,
};
const found: Record<string, { code?: string; message?: string }> = {};
try {
  await run("git", ["init", "-q", "-b", "main"], { cwd: repo, env });
  for (const [name, url] of Object.entries(remotes)) await run("git", ["remote", "add", name, url], { cwd: repo, env });
  const resolve: Resolver = async (host) => (host === "metadata.test" ? [{ address: "169.254.169.254", family: 4 }] : []);
  const protocol = createGitProtocol({ resolve });
  const environment = environmentFor(await Workspace.open(repo), env, { GIT: { allowHosts: ["127.0.0.1"], networkTimeoutMs: 5000 } });
  for (const name of Object.keys(remotes)) {
    try {
      await invoke(protocol, "fetch", { remote: name }, { environment });
      found[name] = { code: "fetched" };
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      found[name] = { code, message };
    }
  }
} finally {
  server.close();
  await fs.rm(repo, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ found, requests }));
