/**
 * A project's `.mcp.json` (Claude Code's project file) as the config reads it: its servers only
 * in a trusted folder, below the project's own `.clio/config.json` and above the person's config
 * for the same key; a server clio cannot use is left out by itself with a warning.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, trustQuestion } from "../../src/config/index.js";
import { temporaryFolder } from "../support/workspace.js";

let home: Awaited<ReturnType<typeof temporaryFolder>>;
let project: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  home = await temporaryFolder("clio-mcpjson-home-");
  project = await temporaryFolder("clio-mcpjson-project-");
  await mkdir(path.join(home.path, ".clio"));
});
afterEach(async () => {
  await home.remove();
  await project.remove();
});

const mcpFile = () => path.join(project.path, ".mcp.json");
const projectConfig = () => path.join(project.path, ".clio", "config.json");
const userConfig = () => path.join(home.path, ".clio", "config.json");
const write = async (file: string, value: unknown) => {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof value === "string" ? value : JSON.stringify(value));
};
const load = (trustProject = false) => loadConfig({ cwd: project.path, env: {}, homeDir: home.path, trustProject });
/** `${TOKEN}` as the file holds it: expanded when the server starts, not when the config is read. */
const variable = ["$", "{TOKEN}"].join("");
const server = (name: string) => ({ command: "node", args: [`${name}.js`] });

describe("a project's .mcp.json", () => {
  it("starts nothing in a folder nobody trusted: its servers are a loosening named with the file", async () => {
    await write(mcpFile(), { mcpServers: { everything: server("everything") } });
    const resolved = await load();
    expect(resolved.config.mcpServers).toEqual({});
    expect(resolved.project).toMatchObject({ root: project.path, file: mcpFile(), trusted: false });
    expect(resolved.project?.loosenings).toEqual([
      { key: "mcpServers", value: { everything: server("everything") }, description: "start the programs named in mcpServers of .mcp.json", file: mcpFile() },
    ]);
    expect(resolved.warnings).toEqual([]);
  });

  it("is read in a trusted folder (trustedFolders or --trust-project), with its file as the source", async () => {
    await write(mcpFile(), { mcpServers: { everything: { type: "stdio", ...server("everything"), env: { TOKEN: variable } } } });
    await write(userConfig(), { trustedFolders: [project.path] });
    for (const resolved of [await load(), await load(true)]) {
      expect(resolved.project?.trusted).toBe(true);
      expect(resolved.config.mcpServers.everything).toEqual({ config: { ...server("everything"), env: { TOKEN: variable } }, source: `project:${mcpFile()}` });
    }
    expect((await load()).entries).toContainEqual({ key: "mcpServers.everything.command", value: "node", source: `project:${mcpFile()}` });
  });

  it("for the same key: .clio/config.json beats .mcp.json beats the person's config, and the winner names what it replaced", async () => {
    await write(userConfig(), { trustedFolders: [project.path], mcpServers: { fs: server("user-fs"), mine: server("mine") } });
    await write(mcpFile(), { mcpServers: { fs: server("mcp-json-fs"), shared: server("mcp-json-shared") } });
    await write(projectConfig(), { mcpServers: { shared: server("clio-shared") } });
    const { mcpServers } = (await load()).config;
    expect(mcpServers.mine).toEqual({ config: server("mine"), source: `user:${userConfig()}` });
    expect(mcpServers.fs).toEqual({ config: server("mcp-json-fs"), source: `project:${mcpFile()}`, replaces: [`user:${userConfig()}`] });
    expect(mcpServers.shared).toEqual({ config: server("clio-shared"), source: `project:${projectConfig()}`, replaces: [`project:${mcpFile()}`] });
  });

  it("untrusted beside a project config: both files' loosenings are listed, and the question names both files", async () => {
    await write(mcpFile(), { mcpServers: { fs: server("fs") } });
    await write(projectConfig(), { permissionMode: "yolo", shellProtocols: { WORDS: { summary: "w", actions: { count: { summary: "c", command: "wc -w" } } } } });
    const resolved = await load();
    expect(resolved.config.mcpServers).toEqual({});
    expect(resolved.config.shellProtocols).toEqual({});
    expect(resolved.config.permissionMode).toBe("ask");
    expect(resolved.project?.file).toBe(projectConfig());
    expect(resolved.project?.loosenings.map((loosening) => loosening.key)).toEqual(["permissionMode", "shellProtocols", "mcpServers"]);
    const question = trustQuestion(resolved.project!);
    expect(question.split("\n")[0]).toBe(`${projectConfig()} and ${mcpFile()} would loosen what clio asks before doing:`);
    expect(question).toContain('  - .mcp.json mcpServers: {"fs":{"command":"node","args":["fs.js"]}} (start the programs named in mcpServers of .mcp.json)');
  });

  it("leaves out, each by itself with a warning naming the file and server, a server clio cannot use; the others are read", async () => {
    await write(userConfig(), { trustedFolders: [project.path] });
    await write(mcpFile(), {
      mcpServers: {
        good: server("good"),
        old: { type: "sse", url: "http://127.0.0.1:9/sse" },
        both: { command: "node", url: "http://127.0.0.1:9/mcp" },
        typo: { comand: "node" },
        wrong: { command: "node", args: "server.js" },
      },
    });
    const resolved = await load();
    expect(Object.keys(resolved.config.mcpServers)).toEqual(["good"]);
    expect(resolved.warnings).toEqual([
      `${mcpFile()}: the MCP server old is left out: its type is "sse", the older HTTP+SSE transport, which clio does not speak (streamable HTTP is type "http" with a url).`,
      `${mcpFile()}: the MCP server both is left out: mcpServers.both needs either command (a program to start) or url (a streamable-HTTP server), not both.`,
      `${mcpFile()}: the MCP server typo is left out: unknown key "comand" (did you mean "command"?); known keys: type, command, args, env, cwd, url, headers, startTimeout, callTimeout, disabled; mcpServers.typo needs either command (a program to start) or url (a streamable-HTTP server), not both.`,
      `${mcpFile()}: the MCP server wrong is left out: mcpServers.wrong.args must be an array (got string).`,
    ]);
  });

  it("that is not JSON, or holds no mcpServers object, is ignored with a warning; clio still starts", async () => {
    await write(mcpFile(), '{"mcpServers": {"fs": {"command": "node",}}}');
    const broken = await load(true);
    expect(broken.warnings).toEqual([expect.stringMatching(/^.*\.mcp\.json:1:\d+: invalid JSON \(.*\); its servers are left out\. Fix the JSON there\.$/)]);
    expect(broken.project).toBeUndefined();
    await write(mcpFile(), { servers: {} });
    expect((await load(true)).warnings).toEqual([`${mcpFile()} holds no "mcpServers" object (the shape is {"mcpServers": {"name": {"command": "…"}}}); it is ignored.`]);
  });

  it("is read in the project root, the folder holding .clio, when clio starts in a subfolder", async () => {
    await write(projectConfig(), { model: "m" });
    await write(mcpFile(), { mcpServers: { fs: server("fs") } });
    const inner = path.join(project.path, "src", "deep");
    await mkdir(inner, { recursive: true });
    const resolved = await loadConfig({ cwd: inner, env: {}, homeDir: home.path, trustProject: true });
    expect(resolved.config.mcpServers.fs?.source).toBe(`project:${mcpFile()}`);
  });
});
