import { describe, expect, it } from "vitest";
import { webProtocol } from "../../../protocols/web.js";
import { environmentFor, run, useFixtures } from "./support.js";

const fixtures = useFixtures();

const MEGABYTE = 1024 * 1024;
const call = (action: string, raw: Record<string, string>, web: Record<string, unknown>, signal?: AbortSignal) =>
  run(webProtocol, action, raw, environmentFor(fixtures.workspace.workspace, { allowHosts: ["127.0.0.1"], ...web }), signal);

describe("WEB limits", () => {
  it("stops a server that never answers at the time limit, saying so", async () => {
    const { error } = await call("fetch", { url: `${fixtures.server.origin}/silent` }, { timeoutMs: 300 });
    expect(error?.code).toBe("timeout");
    expect(error?.message).toBe(`Fetching ${fixtures.server.origin}/silent did not finish within 300 ms and was stopped.`);
    expect(error?.hint).toContain("WEB.timeoutMs");
  });

  it("counts the body in the time limit: a trickling body also times out", async () => {
    const { error } = await call("api", { method: "GET", url: `${fixtures.server.origin}/trickle` }, { timeoutMs: 300 });
    expect(error?.code).toBe("timeout");
    expect(error?.message).toContain(`GET ${fixtures.server.origin}/trickle did not finish within 300 ms`);
  });

  it("stops an endless body at the size limit", async () => {
    const { error } = await call("fetch", { url: `${fixtures.server.origin}/endless` }, { maxBytes: 256 * 1024 });
    expect(error?.code).toBe("too_large");
    expect(error?.message).toBe(`The page at ${fixtures.server.origin}/endless is larger than the 256 KB limit (counted after decompression); reading stopped there.`);
    expect(error?.hint).toContain("WEB.maxBytes");
  });

  it("caps a gzip bomb (small on the wire, 64 MB decoded) on its decoded size", async () => {
    const { error } = await call("api", { url: `${fixtures.server.origin}/bomb` }, { maxBytes: MEGABYTE });
    expect(error?.code).toBe("too_large");
    expect(error?.message).toContain("1 MB limit (counted after decompression)");
    expect(fixtures.server.wireBytes.get("/bomb")).toBeLessThan(MEGABYTE);
  });

  it("answers a cancel promptly with a cancelled error", async () => {
    const controller = new AbortController();
    const pending = call("fetch", { url: `${fixtures.server.origin}/silent` }, { timeoutMs: 20_000 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const { error } = await pending;
    expect(error?.code).toBe("cancelled");
    expect(error?.message).toBe(`Fetching ${fixtures.server.origin}/silent was cancelled.`);
  });

  it("does not start when already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const before = fixtures.server.requests.length;
    const { error } = await call("fetch", { url: `${fixtures.server.origin}/article` }, {}, controller.signal);
    expect(error?.code).toBe("cancelled");
    expect(fixtures.server.requests.length).toBe(before);
  });
});
