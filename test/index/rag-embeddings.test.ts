/**
 * Optional hybrid ranking through an OpenAI-compatible embeddings endpoint: a real HTTP server
 * on 127.0.0.1 that embeds texts as hashed bags of words (deterministic, not semantic). Off by
 * default; with `RAG.embeddings` the vectors are stored beside the index and only what changed
 * is embedded again.
 */
import { existsSync } from "node:fs";
import { cp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRagProtocol } from "../../protocols/rag.js";
import type { ProtocolEnvironment } from "../../protocols/contract/protocol.js";
import { tokenize } from "../../tools/index/tokenize.js";
import { Workspace } from "../../tools/workspace.js";
import { environmentFor, invoke } from "../protocols/invoke.js";
import { temporaryFolder } from "../support/workspace.js";

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/retrieval/repo");
let server: Server;
let url: string;
const requests: Array<{ authorization?: string; model: string; count: number }> = [];
let failNext = false;

function embed(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const token of tokenize(text)) vector[[...token].reduce((hash, character) => (hash * 31 + character.charCodeAt(0)) % 64, 7)]! += 1;
  return vector;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      requests.push({ authorization: request.headers.authorization, model, count: input.length });
      if (failNext) {
        failNext = false;
        response.writeHead(503).end("busy");
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      // Entries out of order, as the index field allows.
      response.end(JSON.stringify({ data: input.map((text, index) => ({ index, embedding: embed(text) })).reverse() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function workspaceWith(config: Record<string, unknown>): Promise<{ environment: ProtocolEnvironment; root: string; remove(): Promise<void> }> {
  const folder = await temporaryFolder("clio-rag-embed-");
  await cp(fixture, folder.path, { recursive: true });
  return { environment: environmentFor(await Workspace.open(folder.path), { EMBED_KEY: "secret-key" }, config), root: folder.path, remove: folder.remove };
}

describe("RAG hybrid ranking with an embeddings endpoint", () => {
  it("is off by default: no request, no vectors beside the index", async () => {
    const { environment, root, remove } = await workspaceWith({});
    const rag = createRagProtocol();
    const state = rag.setup!(environment) as never;
    requests.length = 0;
    await invoke(rag, "search", { query: "circular buffer" }, { environment, state });
    expect(requests).toEqual([]);
    expect(existsSync(path.join(root, ".clio/index/vectors.json"))).toBe(false);
    await remove();
  });

  it("embeds every chunk once, sends the model and key, ranks with the vectors, embeds only changed files again, and falls back to words when the endpoint fails", async () => {
    const { environment, root, remove } = await workspaceWith({ RAG: { embeddings: { url, model: "test-embed", apiKeyEnv: "EMBED_KEY" } } });
    const rag = createRagProtocol();
    const state = rag.setup!(environment) as never;
    requests.length = 0;
    const { output } = await invoke(rag, "search", { query: "circular buffer push and pop" }, { environment, state });
    expect(output).toMatch(/ringbuffer\.[ch]:/);
    expect(requests.length).toBeGreaterThan(1);
    expect(requests.every((entry) => entry.model === "test-embed" && entry.authorization === "Bearer secret-key")).toBe(true);
    expect(existsSync(path.join(root, ".clio/index/vectors.json"))).toBe(true);
    const chunks = requests.slice(0, -1).reduce((sum, entry) => sum + entry.count, 0);
    expect(chunks).toBeGreaterThan(61);
    requests.length = 0;
    await writeFile(path.join(root, "native/src/late.c"), "int pelican_flamingo(void)\n{\n  return 3;\n}\n");
    await invoke(rag, "index", {}, { environment, state });
    // One file changed: its one chunk is embedded, nothing else.
    expect(requests.map((entry) => entry.count)).toEqual([1]);
    // A failing endpoint at search time leaves the lexical ranking, with a note.
    failNext = true;
    const fallback = await invoke(rag, "search", { query: "pelican flamingo" }, { environment, state });
    expect(fallback.output).toContain("(Semantic ranking was skipped: The embeddings endpoint");
    expect(fallback.output).toContain("native/src/late.c:1-4");
    await remove();
  });

  it("says how to fix a bad setting, a remote endpoint named by config, or a failing endpoint", async () => {
    const bad = await workspaceWith({ RAG: { embeddings: { url: "http://127.0.0.1:9/v1" } } });
    const rag = createRagProtocol();
    await expect(invoke(rag, "search", { query: "buffer" }, { environment: bad.environment, state: rag.setup!(bad.environment) as never })).rejects.toMatchObject({
      code: "not_configured",
      hint: expect.stringContaining("embeddings"),
    });
    await bad.remove();
    // A repository's config must not send its code to another machine; the user's environment may.
    const remote = await workspaceWith({ RAG: { embeddings: { url: "https://embeddings.example.com/v1", model: "m" } } });
    const third = createRagProtocol();
    await expect(invoke(third, "search", { query: "buffer" }, { environment: remote.environment, state: third.setup!(remote.environment) as never })).rejects.toMatchObject({
      code: "not_configured",
      message: expect.stringContaining("not on this machine"),
      hint: expect.stringContaining("CLIO_EMBEDDINGS_URL"),
    });
    const overridden = { ...remote.environment, env: { CLIO_EMBEDDINGS_URL: url } };
    const fourth = createRagProtocol();
    requests.length = 0;
    await invoke(fourth, "search", { query: "buffer" }, { environment: overridden, state: fourth.setup!(overridden) as never });
    expect(requests.length).toBeGreaterThan(0);
    await remote.remove();
    const failing = await workspaceWith({ RAG: { embeddings: { url, model: "test-embed" } } });
    failNext = true;
    const second = createRagProtocol();
    await expect(invoke(second, "index", {}, { environment: failing.environment, state: second.setup!(failing.environment) as never })).rejects.toMatchObject({
      code: "http_error",
      message: expect.stringContaining("503"),
    });
    await failing.remove();
  });
});
