import { describe, expect, it } from "vitest";
import { webProtocol } from "../../../protocols/web.js";
import { environmentFor, run, useFixtures } from "./support.js";

const fixtures = useFixtures();

const api = (raw: Record<string, string | undefined>) =>
  run(webProtocol, "api", raw, environmentFor(fixtures.workspace.workspace, { allowHosts: ["127.0.0.1"], timeoutMs: 5_000 }));
const echoed = async (raw: Record<string, string | undefined>) => {
  const { result, error } = await api({ url: `${fixtures.server.origin}/echo`, ...raw });
  expect(error).toBeUndefined();
  return (result?.data as { body: string } | undefined)?.body ?? "";
};

describe("WEB.api", () => {
  it("describes itself with the method and URL", async () => {
    expect((await api({ method: "post", url: `${fixtures.server.origin}/echo` })).description).toBe(`POST ${fixtures.server.origin}/echo`);
    expect((await api({ url: `${fixtures.server.origin}/echo` })).description).toBe(`GET ${fixtures.server.origin}/echo`);
  });

  it("sends a JSON object body as application/json and pretty-prints the JSON answer", async () => {
    const { result } = await api({ method: "post", url: `${fixtures.server.origin}/echo`, body: '{"name":"clio"}' });
    expect(result?.output).toContain("Status: 200 OK");
    expect(result?.output).toContain('"method": "POST",\n  "contentType": "application/json",');
    expect(result?.output).toContain('"body": "{\\"name\\":\\"clio\\"}"');
  });

  it("sends the user agent its environment gives", async () => {
    expect(JSON.parse(await echoed({})).userAgent).toBe("clio/test");
  });

  it("sends other bodies as text/plain, and keeps a Content-Type the headers give", async () => {
    expect(await echoed({ method: "PUT", body: "just words" })).toContain('"contentType": "text/plain; charset=utf-8"');
    expect(await echoed({ method: "PUT", body: "42" })).toContain('"contentType": "text/plain; charset=utf-8"');
    const custom = await echoed({ method: "PATCH", body: "{}", headers: '{"Content-Type":"application/merge-patch+json","X-Api-Key":"k-1"}' });
    expect(custom).toContain('"contentType": "application/merge-patch+json"');
    expect(custom).toContain('"apiKey": "k-1"');
  });

  it("shows selected headers and never Set-Cookie", async () => {
    const { result } = await api({ url: `${fixtures.server.origin}/echo` });
    expect(result?.output).toContain("Header content-type: application/json");
    expect(result?.output).toContain("Header x-ratelimit-remaining: 41");
    expect(result?.output).not.toContain("session=secret");
  });

  it("returns error statuses as results with their body", async () => {
    const { result, error } = await api({ url: `${fixtures.server.origin}/api-error` });
    expect(error).toBeUndefined();
    expect(result?.output).toContain("Status: 401 Unauthorized");
    expect(result?.output).toContain('"error": "bad token"');
    const broken = await api({ method: "DELETE", url: `${fixtures.server.origin}/broken` });
    expect(broken.result?.output).toContain("Status: 500 Internal Server Error");
    expect(broken.result?.output).toContain("internal failure");
  });

  it("reports Location on a 201 and does not follow redirects for POST", async () => {
    expect((await api({ method: "POST", url: `${fixtures.server.origin}/created`, body: "{}" })).result?.output).toContain("Header location: /things/7");
    const moved = await api({ method: "POST", url: `${fixtures.server.origin}/moved`, body: "{}" });
    expect(moved.result?.output).toContain("Status: 307 Temporary Redirect");
    expect(moved.result?.output).toContain("Header location: /echo");
    expect(moved.result?.output).toContain("(empty body)");
  });

  it("follows redirects for GET", async () => {
    const { result } = await api({ url: `${fixtures.server.origin}/hop/2` });
    expect(result?.output).toContain(`URL: ${fixtures.server.origin}/hop/0`);
    expect(result?.output).toContain("arrived");
  });

  it("describes a binary body instead of printing it", async () => {
    const { result } = await api({ url: `${fixtures.server.origin}/image.png` });
    expect(result?.output).toContain("(binary body: image/png, 2 KB; use WEB.download to save it)");
  });

  it("refuses headers it sets itself, bad header names and header values with line breaks", async () => {
    expect((await api({ url: `${fixtures.server.origin}/echo`, headers: '{"Host":"evil.test"}' })).error?.message).toContain("The Host header is set by WEB itself");
    expect((await api({ url: `${fixtures.server.origin}/echo`, headers: '{"bad name":"x"}' })).error?.code).toBe("invalid_argument");
    expect((await api({ url: `${fixtures.server.origin}/echo`, headers: '{"X-A":"1\\r\\nX-B: 2"}' })).error?.message).toContain("line break");
  });

  it("rejects a method that is not a word, and headers that are not a JSON object", () => {
    const { method, headers } = webProtocol.actions.api?.parameters ?? {};
    if (method === undefined || headers === undefined) throw new Error("WEB.api lost its method or headers parameter");
    expect(method.schema.safeParse("GET /x").success).toBe(false);
    expect(method.schema.safeParse("TRACE").success).toBe(false);
    expect(headers.schema.safeParse('["a"]').success).toBe(false);
    expect(headers.schema.safeParse(undefined).success).toBe(true);
  });
});
