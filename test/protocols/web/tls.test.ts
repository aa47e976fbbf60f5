import { promises as fs } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebProtocol } from "../../../protocols/web.js";
import type { Resolver } from "../../../tools/network/guard.js";
import { createNodeTransport } from "../../../tools/network/transport.js";
import { environmentFor, makeWorkspace, run, type TestWorkspace } from "./support.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "web");

let server: https.Server;
let port: number;
let certificate: Buffer;
let workspace: TestWorkspace;

beforeAll(async () => {
  certificate = await fs.readFile(path.join(FIXTURES, "tls-cert.pem"));
  const key = await fs.readFile(path.join(FIXTURES, "tls-key.pem"));
  server = https.createServer({ key, cert: certificate }, (request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`secure hello for ${request.headers.host}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  workspace = await makeWorkspace();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await workspace.remove();
});

/** The certificate names pinned.test only; the resolver sends that name to 127.0.0.1. */
const resolve: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
const web = { allowHosts: ["pinned.test", "127.0.0.1"], timeoutMs: 5_000 };

describe("WEB over https with a pinned address", () => {
  it("verifies the certificate against the URL's host name while connecting to the checked address", async () => {
    const protocol = createWebProtocol({ resolve, transport: createNodeTransport({ ca: certificate }) });
    const { result, error } = await run(protocol, "fetch", { url: `https://pinned.test:${port}/` }, environmentFor(workspace.workspace, web));
    expect(error).toBeUndefined();
    expect(result?.output).toContain(`secure hello for pinned.test:${port}`);
  });

  it("refuses a certificate that does not name the host", async () => {
    const protocol = createWebProtocol({ resolve, transport: createNodeTransport({ ca: certificate }) });
    const { error } = await run(protocol, "fetch", { url: `https://127.0.0.1:${port}/` }, environmentFor(workspace.workspace, web));
    expect(error?.code).toBe("network_error");
    expect(error?.message).toContain(`The certificate of https://127.0.0.1:${port} was not accepted (ERR_TLS_CERT_ALTNAME_INVALID`);
  });

  it("refuses a self-signed certificate it was not told to trust", async () => {
    const protocol = createWebProtocol({ resolve });
    const { error } = await run(protocol, "fetch", { url: `https://pinned.test:${port}/` }, environmentFor(workspace.workspace, web));
    expect(error?.code).toBe("network_error");
    expect(error?.message).toContain("was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT");
  });
});
