/**
 * WEB figures, side by side in one run: what the guard and markdown conversion cost over a raw
 * HTTP GET of the same page, how conversion time grows with page size, and what a gzip bomb
 * costs when capped versus inflated in full. Run: node --import tsx bench/web.bench.ts
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { webProtocol } from "../protocols/web.js";
import type { ProtocolEnvironment } from "../protocols/contract/protocol.js";
import { readCapped, sizeLimitError } from "../tools/web/body.js";
import { htmlToMarkdown } from "../tools/web/html.js";
import { Workspace } from "../tools/workspace.js";

function page(paragraphs: number, seed = 7): string {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const words = ["stream", "buffer", "pipe", "error", "signal", "chunk", "reader", "writer", "drain", "close"];
  const sentence = () => `${Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(" ")}. `;
  const body = Array.from({ length: paragraphs }, (_, index) =>
    index % 10 === 0
      ? `<h2>Section ${index}</h2><pre><code class="language-js">const x${index} = ${index};</code></pre>`
      : `<p>${sentence().repeat(4)}<a href="/p/${index}">link ${index}</a></p>`,
  ).join("\n");
  return `<!doctype html><html><head><title>Bench</title><script>var a=1</script></head><body><nav><a href="/">Home</a></nav><article><h1>Bench</h1>${body}</article><footer>f</footer></body></html>`;
}

async function time(runs: number, work: () => Promise<unknown> | unknown): Promise<number> {
  await work();
  const start = performance.now();
  for (let index = 0; index < runs; index++) await work();
  return (performance.now() - start) / runs;
}

const html = Buffer.from(page(60));
const server = http.createServer((_request, response) => {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": html.length });
  response.end(html);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const workspace = await Workspace.open(os.tmpdir());
const environment: ProtocolEnvironment = { workspace, config: { WEB: { allowHosts: ["127.0.0.1"] } }, env: {}, now: Date.now, userAgent: "clio-bench" };
const fetchAction = webProtocol.actions.fetch!;
const signal = new AbortController().signal;

const rawGet = () =>
  new Promise<void>((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        response.on("data", () => {});
        response.on("end", resolve);
      })
      .on("error", reject);
  });
const rows: [string, string, string][] = [];
const raw = await time(100, rawGet);
const full = await time(100, () => fetchAction.handler({ url }, { state: undefined, environment, signal }));
rows.push([`GET ${Math.round(html.length / 1024)} KB page: raw http.get`, `${raw.toFixed(2)} ms`, "1.00×"]);
rows.push(["  same page through WEB.fetch (guard + markdown)", `${full.toFixed(2)} ms`, `${(full / raw).toFixed(2)}×`]);
server.close();

/** A reference page: a long list of links with inline code, and a table (the shape of API docs). */
function listPage(items: number): string {
  const rows = Array.from({ length: items }, (_, index) => `<li><a href="/api/${index}">method${index}</a> returns the <code>value${index}</code> of the thing</li>`);
  const table = Array.from({ length: Math.ceil(items / 4) }, (_, index) => `<tr><td>${index}</td><td>name ${index}</td><td>row ${index}</td></tr>`);
  return `<html><head><title>API</title></head><body><main><h1>API</h1><p>Reference.</p><ul>${rows.join("\n")}</ul><table>${table.join("")}</table></main></body></html>`;
}

// Linearity (target: a 1 MB page costs at most 1.5x per byte what a 10 KB page costs), for two shapes.
// The sizes alternate over three rounds and each figure is the median of its rounds, in wall and in
// CPU time (this process's threads, the garbage collector's included).
const median = (values: number[]) => [...values].sort((left, right) => left - right)[values.length >> 1]!;
for (const [shape, make, small, large] of [
  ["article", page, 33, 3300],
  ["reference list", listPage, 100, 10000],
] as const) {
  const texts = [make(small), make(large)];
  const wall: number[][] = [[], []];
  const cpu: number[][] = [[], []];
  for (let round = 0; round < 3; round++) {
    for (const [index, text] of texts.entries()) {
      const runs = index === 0 ? 40 : 1;
      htmlToMarkdown(text, new URL("https://example.com/"));
      const start = performance.now();
      const startCpu = process.cpuUsage();
      for (let run = 0; run < runs; run++) htmlToMarkdown(text, new URL("https://example.com/"));
      const used = process.cpuUsage(startCpu);
      wall[index]!.push((performance.now() - start) / runs / text.length);
      cpu[index]!.push((used.user + used.system) / 1000 / runs / text.length);
    }
  }
  for (const [index, text] of texts.entries()) {
    const perByte = (values: number[][]) => median(values[index]!) / median(values[0]!);
    const milliseconds = median(wall[index]!) * text.length;
    rows.push([
      `htmlToMarkdown, ${shape}, ${Math.round(text.length / 1024)} KB`,
      `${milliseconds.toFixed(1)} ms`,
      `${perByte(wall).toFixed(2)}× per byte (CPU ${perByte(cpu).toFixed(2)}×)`,
    ]);
  }
}

const bomb = zlib.gzipSync(Buffer.alloc(256 * 1024 * 1024, "a"));
const cap = 5 * 1024 * 1024;
const capped = await time(5, () => readCapped(Readable.from([bomb]), { "content-encoding": "gzip" }, cap, sizeLimitError("bomb", "maxBytes")).catch(() => undefined));
const inflated = await time(2, () => zlib.gunzipSync(bomb).length);
rows.push([`gzip bomb (${Math.round(bomb.length / 1024)} KB → 256 MB): inflate in full`, `${inflated.toFixed(1)} ms`, "1.00×"]);
rows.push(["  read through the 5 MB decoded cap", `${capped.toFixed(1)} ms`, `${(capped / inflated).toFixed(3)}×`]);

const width = Math.max(...rows.map((row) => row[0].length));
for (const [name, value, ratio] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(10)}  ${ratio}`);
