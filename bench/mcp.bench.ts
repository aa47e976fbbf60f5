/**
 * MCP through clio against the plain SDK, side by side in one run:
 * 1. one tool call: a command parsed, checked, permitted, validated against the tool's schema,
 *    called and turned into a result, against `client.callTool` on a client connected to the same
 *    server (the floor);
 * 2. `clio protocols` with two servers configured (the filesystem and everything servers), against
 *    a plain script that starts both with the SDK and lists their tools (the floor).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { scriptSubmissions } from "../src/replay/replay.js";
import { createRuntime } from "../src/runtime.js";
import { format, median, printTable, time, timeProcess } from "./support.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist", "clio.js");
const testServer = path.join(root, "test", "fixtures", "mcp", "stdio-server.mjs");
const folder = mkdtempSync(path.join(os.tmpdir(), "clio-mcp-bench-"));
const workspace = path.join(folder, "workspace");
mkdirSync(workspace);

// 1. One call.
const runtime = await createRuntime({
  workspace,
  permissionMode: "yolo",
  extensions: { mcpServers: { test: { config: { command: process.execPath, args: [testServer] }, source: "bench" } } },
});
await runtime.registry.discover();
const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [testServer] }));
const command = "[TEST:action=add:a=2:b=3]";
const rounds = 400;
const throughClio: number[] = [];
const direct: number[] = [];
for (let round = 0; round < rounds + 20; round++) {
  const clioTime = await time(async () => {
    const [result] = await runtime.manager.runAll(scriptSubmissions(command).submissions);
    if (!result?.ok) throw new Error(`the call failed: ${JSON.stringify(result?.error)}`);
  });
  const directTime = await time(() => client.callTool({ name: "add", arguments: { a: 2, b: 3 } }));
  if (round < 20) continue;
  throughClio.push(clioTime);
  direct.push(directTime);
}
await client.close();
await runtime.manager.dispose();

// 2. `clio protocols` with two servers.
const servers = {
  fs: { command: process.execPath, args: [path.join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), workspace] },
  everything: { command: process.execPath, args: [path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")] },
};
const home = path.join(folder, "home");
mkdirSync(path.join(home, ".clio"), { recursive: true });
writeFileSync(path.join(home, ".clio", "config.json"), JSON.stringify({ mcpServers: servers }));
const emptyHome = path.join(folder, "empty-home");
mkdirSync(emptyHome);
const floorScript = path.join(root, "bench", `.mcp-floor-${process.pid}.mjs`);
writeFileSync(
  floorScript,
  `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const servers = ${JSON.stringify(servers)};
await Promise.all(Object.values(servers).map(async (server) => {
  const client = new Client({ name: "floor", version: "1" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
  const { tools } = await client.listTools();
  for (const tool of tools) process.stdout.write(tool.name + " " + (tool.description ?? "") + "\\n");
  await client.close();
}));
`,
);
const environment = (clioHome: string) => ({ ...process.env, HOME: clioHome, CLIO_HOME: clioHome });
const withServers: number[] = [];
const withoutServers: number[] = [];
const floor: number[] = [];
const startRounds = 10;
const savedEnv = { ...process.env };
for (let round = 0; round < startRounds + 2; round++) {
  Object.assign(process.env, environment(home));
  const clioTime = timeProcess(process.execPath, [cli, "protocols"]);
  Object.assign(process.env, environment(emptyHome));
  const bareTime = timeProcess(process.execPath, [cli, "protocols"]);
  const floorTime = timeProcess(process.execPath, [floorScript]);
  if (round < 2) continue;
  withServers.push(clioTime);
  withoutServers.push(bareTime);
  floor.push(floorTime);
}
Object.assign(process.env, savedEnv);
rmSync(floorScript, { force: true });
rmSync(folder, { recursive: true, force: true });

const call = median(throughClio);
const callFloor = median(direct);
const listing = median(withServers);
const listingFloor = median(floor);
printTable([
  [`MCP tool call through clio (median of ${rounds})`, `${format(call, 3)} ms = ${format(call / callFloor, 2)}× the direct SDK call`],
  ["direct SDK client.callTool (floor)", `${format(callFloor, 3)} ms`],
  [`clio protocols, 2 MCP servers (median of ${startRounds})`, `${format(listing)} ms = ${format(listing / listingFloor, 2)}× the plain SDK script`],
  ["plain SDK script: start both, list tools (floor)", `${format(listingFloor)} ms`],
  ["clio protocols, no servers (reference)", `${format(median(withoutServers))} ms`],
]);
