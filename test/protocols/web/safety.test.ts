import { describe, expect, it } from "vitest";
import { createWebProtocol } from "../../../protocols/web.js";
import type { Resolver } from "../../../tools/network/guard.js";
import { nodeTransport, type Transport } from "../../../tools/network/transport.js";
import { environmentFor, run, startServer, useFixtures } from "./support.js";

const fixtures = useFixtures();

/** A resolver for made-up names, and a real transport that records where it connects. */
function seams(names: Record<string, string> = {}) {
  const connections: string[] = [];
  const resolve: Resolver = async (hostname) => {
    const address = names[hostname];
    if (address === undefined) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };
  const transport: Transport = (request) => {
    connections.push(`${request.url.href} @ ${request.address}`);
    return nodeTransport(request);
  };
  return { protocol: createWebProtocol({ resolve, transport }), connections };
}

const web = { allowHosts: ["127.0.0.1"], timeoutMs: 5_000 };
const fetchWith = (protocol: ReturnType<typeof seams>["protocol"], url: string, settings: Record<string, unknown> = web) =>
  run(protocol, "fetch", { url }, environmentFor(fixtures.workspace.workspace, settings));

describe("WEB safety", () => {
  it("refuses file: and other non-HTTP schemes without a request", async () => {
    const { protocol, connections } = seams();
    for (const url of ["file:///etc/passwd", "ftp://example.com/x", "gopher://127.0.0.1/", "data:text/plain,hello"]) {
      const { error } = await fetchWith(protocol, url);
      expect(error?.code, url).toBe("unsupported_scheme");
    }
    const file = await fetchWith(protocol, "file:///etc/passwd");
    expect(file.error?.hint).toContain("FILE_OP.read");
    expect(connections).toEqual([]);
  });

  it("refuses a redirect to a private address without connecting to it", async () => {
    const { protocol, connections } = seams();
    const { error } = await fetchWith(protocol, `${fixtures.server.origin}/to-private`);
    expect(error?.code).toBe("blocked_address");
    expect(error?.message).toContain(`The redirect from ${fixtures.server.origin}/to-private to http://10.0.0.1/secret was refused`);
    expect(error?.message).toContain("10.0.0.1 is a private network");
    expect(connections).toEqual([`${fixtures.server.origin}/to-private @ 127.0.0.1`]);
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    const { protocol, connections } = seams();
    const { error } = await fetchWith(protocol, `${fixtures.server.origin}/to-metadata`);
    expect(error?.code).toBe("blocked_address");
    expect(error?.message).toContain("169.254.169.254 is link-local (including cloud metadata services)");
    expect(connections).toHaveLength(1);
  });

  it("refuses a redirect to a file: URL", async () => {
    const { protocol } = seams();
    const { error } = await fetchWith(protocol, `${fixtures.server.origin}/to-file`);
    expect(error?.code).toBe("unsupported_scheme");
  });

  it("refuses a redirect to a host name that resolves to loopback, even though 127.0.0.1 is allowed literally", async () => {
    const { protocol, connections } = seams({ "rebind.test": "127.0.0.1" });
    const extra = await startServer({
      "/to-rebind": (_request, response) => {
        response.writeHead(302, { location: `http://rebind.test:${fixtures.server.port}/article` });
        response.end();
      },
    });
    try {
      const before = fixtures.server.requests.length;
      const { error } = await fetchWith(protocol, `${extra.origin}/to-rebind`);
      expect(error?.code).toBe("blocked_address");
      expect(error?.message).toContain("rebind.test resolves to 127.0.0.1, which is loopback (this machine)");
      expect(connections).toEqual([`${extra.origin}/to-rebind @ 127.0.0.1`]);
      expect(fixtures.server.requests.length).toBe(before);
    } finally {
      await extra.close();
    }
  });

  it("blocks loopback, private and metadata hosts when allowHosts is empty", async () => {
    const { protocol, connections } = seams({ localhost: "127.0.0.1", "mixed.test": "8.8.8.8" });
    const blocked = [
      fixtures.server.origin,
      `http://localhost:${fixtures.server.port}/`,
      `http://[::1]:${fixtures.server.port}/`,
      `http://[::ffff:127.0.0.1]:${fixtures.server.port}/`,
      "http://0.0.0.0/",
      "http://2130706433/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
    ];
    for (const url of blocked) {
      const { error } = await fetchWith(protocol, url, { allowHosts: [] });
      expect(error?.code, url).toBe("blocked_address");
    }
    expect(connections).toEqual([]);
  });

  it("requires every resolved address to be allowed", async () => {
    const resolve: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.1.2.3", family: 4 },
    ];
    const connections: string[] = [];
    const protocol = createWebProtocol({ resolve, transport: (request) => (connections.push(request.address), nodeTransport(request)) });
    const { error } = await fetchWith(protocol, "http://split.test/");
    expect(error?.code).toBe("blocked_address");
    expect(error?.message).toContain("split.test resolves to 10.1.2.3");
    expect(connections).toEqual([]);
  });

  it("connects to exactly the address it checked (a listed name the system cannot resolve still reaches it)", async () => {
    const { protocol, connections } = seams({ "pinned.test": "127.0.0.1" });
    const { result, error } = await fetchWith(protocol, `http://pinned.test:${fixtures.server.port}/notes.txt`, { allowHosts: ["Pinned.Test"] });
    expect(error).toBeUndefined();
    expect(result?.output).toContain("plain text, kept as it is");
    expect(connections).toEqual([`http://pinned.test:${fixtures.server.port}/notes.txt @ 127.0.0.1`]);
  });

  it("says clearly when a name does not resolve", async () => {
    const { protocol } = seams();
    const { error } = await fetchWith(protocol, "http://nowhere.test/");
    expect(error?.code).toBe("network_error");
    expect(error?.message).toBe("nowhere.test could not be resolved (ENOTFOUND).");
  });

  it("refuses URLs that carry credentials and text that is not a URL", async () => {
    const { protocol } = seams();
    expect((await fetchWith(protocol, `http://user:secret@127.0.0.1:${fixtures.server.port}/`)).error?.code).toBe("invalid_argument");
    const notUrl = await fetchWith(protocol, "example.com/page");
    expect(notUrl.error?.code).toBe("invalid_argument");
    expect(notUrl.error?.hint).toContain("https://");
  });

  it("rejects invalid WEB settings with a clear message", async () => {
    const { protocol } = seams();
    const { error } = await fetchWith(protocol, `${fixtures.server.origin}/article`, { allowHosts: "127.0.0.1", maxBytes: -1 });
    expect(error?.code).toBe("not_configured");
    expect(error?.message).toContain("allowHosts");
    expect(error?.message).toContain("maxBytes");
    const withScheme = await fetchWith(protocol, `${fixtures.server.origin}/article`, { allowHosts: [fixtures.server.origin] });
    expect(withScheme.error?.message).toContain("allowHosts.0: each entry is a host name or IP address without scheme or port");
  });

  it("drops Authorization, Cookie and custom headers like X-Api-Key when a redirect leaves the origin, and keeps them within it", async () => {
    const { protocol } = seams();
    const other = await startServer({
      "/away": (_request, response) => {
        response.writeHead(302, { location: `${fixtures.server.origin}/echo` });
        response.end();
      },
      "/here": (_request, response) => {
        response.writeHead(302, { location: "/echo" });
        response.end();
      },
    });
    try {
      const headers = '{"Authorization":"Bearer secret-token","Cookie":"session=1","X-Api-Key":"k-2"}';
      const environment = environmentFor(fixtures.workspace.workspace, web);
      const away = await run(protocol, "api", { url: `${other.origin}/away`, headers }, environment);
      expect(away.result?.output).toContain('"authorization": null');
      expect(away.result?.output).toContain('"cookie": null');
      expect(away.result?.output).toContain('"apiKey": null');
      const here = await run(protocol, "api", { url: `${other.origin}/here`, headers }, environment);
      expect(here.error?.code).toBeUndefined();
      expect(other.requests).toEqual(["/away", "/here", "/echo"]);
      expect(here.result?.output).toContain('"authorization": "Bearer secret-token"');
      expect(here.result?.output).toContain('"apiKey": "k-2"');
    } finally {
      await other.close();
    }
  });

  it("allows an IPv6 address listed in allowHosts (then fails only to connect, as nothing listens there)", async () => {
    const { protocol } = seams();
    const { error } = await fetchWith(protocol, "http://[::1]:9/", { allowHosts: ["::1"], timeoutMs: 5_000 });
    expect(error?.code).toBe("network_error");
    expect(error?.message).toMatch(/^The request to http:\/\/\[::1\]:9 failed: /);
  });
});
