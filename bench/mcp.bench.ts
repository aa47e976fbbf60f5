/**
 * MCP through clio against the plain SDK, side by side in one run:
 * 1. one tool call: a command parsed, checked, permitted, validated against the tool's schema,
 *    called and turned into a result, against `client.callTool` on a client connected to the same
 *    server (the floor);
 * 2. `clio protocols` with two servers configured (the filesystem and everything servers), against
 *    a plain script that starts both with the SDK and lists their tools (the floor).
 */
import { spawnSync } from "node:child_process";
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
const cli = path.join(root, "dist", "clio.cjs");
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
/**
 * Wall and CPU time of a process and the processes it waited for (its MCP servers), in ms: the
 * shell's `times` reports its children's user and system time. On a loaded machine the CPU time
 * says more than the wall time.
 */
function timeWithCpu(command: string, args: string[]): { wall: number; cpu: number } {
  const start = performance.now();
  const result = spawnSync("sh", ["-c", '"$@" >/dev/null 2>&1 || exit 1; times', "sh", command, ...args], { encoding: "utf8" });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed`);
  const children = result.stdout.trim().split("\n").at(-1) ?? "";
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, minutes, rest]) => sum + Number(minutes) * 60 + Number(rest), 0);
  return { wall, cpu: seconds * 1000 };
}

const environment = (clioHome: string) => ({ ...process.env, HOME: clioHome, CLIO_HOME: clioHome });
const withServers: number[] = [];
const withoutServers: number[] = [];
const floor: number[] = [];
const withServersCpu: number[] = [];
const floorCpu: number[] = [];
const startRounds = 10;
const savedEnv = { ...process.env };
for (let round = 0; round < startRounds + 2; round++) {
  Object.assign(process.env, environment(home));
  const clioTime = timeWithCpu(process.execPath, [cli, "protocols"]);
  Object.assign(process.env, environment(emptyHome));
  const bareTime = timeProcess(process.execPath, [cli, "protocols"]);
  const floorTime = timeWithCpu(process.execPath, [floorScript]);
  if (round < 2) continue;
  withServers.push(clioTime.wall);
  withServersCpu.push(clioTime.cpu);
  withoutServers.push(bareTime);
  floor.push(floorTime.wall);
  floorCpu.push(floorTime.cpu);
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
  [
    "  the same, CPU time with the servers' (clio / floor)",
    `${format(median(withServersCpu))} / ${format(median(floorCpu))} ms = ${format(median(withServersCpu) / median(floorCpu), 2)}×`,
  ],
  ["clio protocols, no servers (reference)", `${format(median(withoutServers))} ms`],
]);
