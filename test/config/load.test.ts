import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/index.js";
import { ClioError } from "../../grammar/errors.js";

let root: string;
let home: string;
let project: string;
let cwd: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "clio-config-")));
  home = path.join(root, "home");
  project = path.join(root, "work", "project");
  cwd = path.join(project, "src", "deep");
  await fs.mkdir(cwd, { recursive: true });
  await fs.mkdir(home, { recursive: true });
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function writeConfig(folder: string, values: unknown): Promise<string> {
  const file = path.join(folder, ".clio", "config.json");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof values === "string" ? values : JSON.stringify(values, null, 2));
  return file;
}

async function load(options: { env?: Record<string, string>; flags?: Record<string, unknown>; trustProject?: boolean } = {}) {
  return loadConfig({ cwd, homeDir: home, env: options.env ?? {}, flags: options.flags, trustProject: options.trustProject });
}

async function loadError(options: { env?: Record<string, string>; flags?: Record<string, unknown> } = {}): Promise<ClioError> {
  const error = await load(options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(ClioError.isInstance(error)).toBe(true);
  return error as ClioError;
}

describe("defaults", () => {
  it("with no files, no variables and no flags every key has its default", async () => {
    const resolved = await load();
    expect(resolved.config).toEqual({
      api: "chat",
      permissionMode: "ask",
      maxTurns: 25,
      requestTimeout: 600,
      idleTimeout: 120,
      workspace: cwd,
      sessionDir: path.join(home, ".clio", "sessions"),
      permissions: { allow: [], deny: [] },
      protocols: {},
      mcpServers: {},
      shellProtocols: {},
    });
    expect(resolved.sources.maxTurns).toBe("default");
    expect(resolved.sources.model).toBe("default");
    expect(resolved.files).toEqual({ user: path.join(home, ".clio", "config.json"), userFound: false });
  });

  it("takes the home folder from CLIO_HOME when no homeDir is given", async () => {
    const userFile = await writeConfig(home, { model: "from-clio-home" });
    const resolved = await loadConfig({ cwd, env: { CLIO_HOME: home } });
    expect(resolved.config.model).toBe("from-clio-home");
    expect(resolved.sources.model).toBe(`user:${userFile}`);
    expect(resolved.config.sessionDir).toBe(path.join(home, ".clio", "sessions"));
  });
});

describe("precedence: flags > environment > project > user > defaults", () => {
  const layers = ["user", "project", "env", "flag"] as const;
  const combinations = Array.from({ length: 16 }, (_, mask) => layers.filter((_, bit) => mask & (1 << bit)));

  it.each(combinations.map((present) => [present.join("+") || "none", present] as const))("model set by %s comes from the highest of them", async (_name, present) => {
    const files: Record<string, string> = {};
    if (present.includes("user")) files.user = await writeConfig(home, { model: "model-user" });
    if (present.includes("project")) files.project = await writeConfig(project, { model: "model-project" });
    const resolved = await load({
      env: present.includes("env") ? { CLIO_MODEL: "model-env" } : {},
      flags: present.includes("flag") ? { model: "model-flag" } : undefined,
    });
    const winner = present.at(-1);
    const expectedSource = winner === undefined ? "default" : winner === "env" ? "env:CLIO_MODEL" : winner === "flag" ? "flag" : `${winner}:${files[winner]}`;
    expect(resolved.config.model).toBe(winner === undefined ? undefined : `model-${winner}`);
    expect(resolved.sources.model).toBe(expectedSource);
  });

  it("merges key by key: each key comes from the highest layer that sets it", async () => {
    const userFile = await writeConfig(home, { provider: "openai", model: "user-model", maxTurns: 10, apiKey: "sk-user-secret-123" });
    const projectFile = await writeConfig(project, { model: "project-model", permissionMode: "auto-edit" });
    const resolved = await load({ env: { CLIO_MAX_TURNS: "40" }, flags: { permissionMode: "plan", model: undefined } });
    expect(resolved.config).toMatchObject({ provider: "openai", model: "project-model", maxTurns: 40, permissionMode: "plan", apiKey: "sk-user-secret-123" });
    expect(resolved.sources).toMatchObject({
      provider: `user:${userFile}`,
      model: `project:${projectFile}`,
      maxTurns: "env:CLIO_MAX_TURNS",
      permissionMode: "flag",
      api: "default",
    });
  });

  it("reads every CLIO_* variable, converting numbers", async () => {
    const resolved = await load({
      env: {
        CLIO_PROVIDER: "ollama",
        CLIO_MODEL: "qwen",
        CLIO_BASE_URL: "http://127.0.0.1:11434/v1",
        CLIO_API: "completions",
        CLIO_PERMISSION_MODE: "yolo",
        CLIO_SESSION_DIR: "state/sessions",
        CLIO_MAX_TURNS: "7",
        CLIO_CONTEXT_WINDOW: "32768",
      },
    });
    expect(resolved.config).toMatchObject({
      provider: "ollama",
      model: "qwen",
      baseUrl: "http://127.0.0.1:11434/v1",
      api: "completions",
      permissionMode: "yolo",
      sessionDir: path.join(cwd, "state", "sessions"),
      maxTurns: 7,
      contextWindow: 32768,
    });
    expect(resolved.sources.contextWindow).toBe("env:CLIO_CONTEXT_WINDOW");
  });

  it("ignores empty environment variables", async () => {
    await writeConfig(home, { model: "user-model" });
    expect((await load({ env: { CLIO_MODEL: "" } })).config.model).toBe("user-model");
  });
});

describe("the project file", () => {
  it("is the nearest .clio/config.json in the current folder or a parent", async () => {
    await writeConfig(path.join(root, "work"), { model: "outer" });
    const nearest = await writeConfig(project, { model: "inner" });
    const resolved = await load();
    expect(resolved.config.model).toBe("inner");
    expect(resolved.files.project).toBe(nearest);
  });

  it("is never the user's own file, even when the current folder is inside home", async () => {
    const userFile = await writeConfig(home, { model: "user-model" });
    const inside = path.join(home, "code", "app");
    await fs.mkdir(inside, { recursive: true });
    const resolved = await loadConfig({ cwd: inside, homeDir: home, env: {} });
    expect(resolved.sources.model).toBe(`user:${userFile}`);
    expect(resolved.files.project).toBeUndefined();
  });

  it("resolves relative paths against the project root, and ~ against home", async () => {
    await writeConfig(project, { workspace: ".", sessionDir: "~/elsewhere" });
    const resolved = await load();
    expect(resolved.config.workspace).toBe(project);
    expect(resolved.config.sessionDir).toBe(path.join(home, "elsewhere"));
  });
});

describe("a project's own config cannot move the workspace out of the project", () => {
  it("refuses a workspace outside the folder that holds .clio, naming the file and where to set it instead", async () => {
    for (const outside of ["/", "..", "~"]) {
      const file = await writeConfig(project, { workspace: outside });
      const error = await loadError();
      expect(error.code).toBe("invalid_config");
      expect(error.message).toContain(`${file}: workspace`);
      expect(error.message).toContain(project);
      expect(error.hint).toMatch(/--workspace/);
    }
  });

  it("accepts the project folder or a folder inside it", async () => {
    await writeConfig(project, { workspace: "src" });
    expect((await load()).config.workspace).toBe(path.join(project, "src"));
  });

  it("leaves the person's own file free to name any folder", async () => {
    await writeConfig(home, { workspace: root });
    expect((await load()).config.workspace).toBe(root);
  });
});

describe("permissions and protocol settings", () => {
  it("collects permission rules from every layer without repeats, each with its source (in a trusted project)", async () => {
    const userFile = await writeConfig(home, { permissions: { allow: ["FILE_OP:read"], deny: ["EXEC:run:rm *"] } });
    const projectFile = await writeConfig(project, { permissions: { allow: ["EXEC:run:npm test*", "FILE_OP:read"] } });
    const resolved = await load({ flags: { permissions: { allow: ["WEB"] } }, trustProject: true });
    expect(resolved.config.permissions).toEqual({ allow: ["FILE_OP:read", "EXEC:run:npm test*", "WEB"], deny: ["EXEC:run:rm *"] });
    expect(resolved.entries.filter((entry) => entry.key.startsWith("permissions."))).toEqual([
      { key: "permissions.allow", value: "FILE_OP:read", source: `user:${userFile}` },
      { key: "permissions.deny", value: "EXEC:run:rm *", source: `user:${userFile}` },
      { key: "permissions.allow", value: "EXEC:run:npm test*", source: `project:${projectFile}` },
      { key: "permissions.allow", value: "WEB", source: "flag" },
    ]);
  });

  it("merges per-protocol settings key by key under upper-case protocol names", async () => {
    const userFile = await writeConfig(home, { protocols: { web: { allowHosts: ["example.com"], timeoutMs: 5000 } } });
    const projectFile = await writeConfig(project, { protocols: { WEB: { timeoutMs: 9000 }, GIT: { author: "Ada" } } });
    const resolved = await load();
    expect(resolved.config.protocols).toEqual({ WEB: { allowHosts: ["example.com"], timeoutMs: 9000 }, GIT: { author: "Ada" } });
    expect(resolved.entries).toContainEqual({ key: "protocols.WEB.allowHosts", value: ["example.com"], source: `user:${userFile}` });
    expect(resolved.entries).toContainEqual({ key: "protocols.WEB.timeoutMs", value: 9000, source: `project:${projectFile}` });
  });
});

describe("config files saved by editors", () => {
  it("reads a file that starts with a UTF-8 byte order mark", async () => {
    await writeConfig(project, '\uFEFF{ "model": "from-bom-file" }');
    const { config, sources } = await load();
    expect(config.model).toBe("from-bom-file");
    expect(sources.model).toMatch(/^project:/);
  });
});

describe("invalid configuration is refused with the file and the key", () => {
  it("names the file, line and column of invalid JSON", async () => {
    const file = await writeConfig(project, '{\n  "model": "x",\n  "maxTurns": 10,\n}\n');
    const error = await loadError();
    expect(error.code).toBe("invalid_config");
    expect(error.message).toContain(`${file}:4:1: invalid JSON`);
  });

  it("names the file of a truncated config", async () => {
    const file = await writeConfig(project, '{ "model": "x", "maxTu');
    const error = await loadError();
    expect(error.message).toMatch(new RegExp(`^${escapeRegExp(file)}:1:\\d+: invalid JSON`));
  });

  it("names the key and the allowed values of a wrong enum", async () => {
    const file = await writeConfig(home, { permissionMode: "fast" });
    const error = await loadError();
    expect(error.message).toBe(`${file}: permissionMode must be one of plan, ask, auto-edit, yolo (got "fast")`);
  });

  it("names an unknown key and suggests the near one", async () => {
    await writeConfig(project, { modle: "x" });
    const error = await loadError();
    expect(error.message).toContain('unknown key "modle" (did you mean "model"?)');
  });

  it("names the rule that is not a permission rule", async () => {
    await writeConfig(project, { permissions: { allow: ["EXEC:run:npm test", "not a rule!"] } });
    const error = await loadError();
    expect(error.message).toContain("permissions.allow[1] is not a permission rule");
  });

  it("reads timeouts and model settings from the environment, and names a bad one", async () => {
    const resolved = await load({ env: { CLIO_REQUEST_TIMEOUT: "2.5", CLIO_IDLE_TIMEOUT: "30", CLIO_TEMPERATURE: "0.2", CLIO_TOP_P: "0.9", CLIO_MAX_TOKENS: "512" } });
    expect(resolved.config).toMatchObject({ requestTimeout: 2.5, idleTimeout: 30, temperature: 0.2, topP: 0.9, maxTokens: 512 });
    expect(resolved.sources.requestTimeout).toBe("env:CLIO_REQUEST_TIMEOUT");
    expect((await loadError({ env: { CLIO_REQUEST_TIMEOUT: "soon" } })).message).toContain('CLIO_REQUEST_TIMEOUT="soon": the value must be a number of seconds');
    expect((await loadError({ env: { CLIO_TEMPERATURE: "9" } })).message).toContain("must be 2 or less");
    expect((await loadError({ flags: { stop: [""] } })).message).toContain("must not be empty");
  });

  it("names the environment variable with a bad value", async () => {
    const error = await loadError({ env: { CLIO_MAX_TURNS: "lots" } });
    expect(error.message).toBe('CLIO_MAX_TURNS="lots": the value must be a whole number (got string)');
  });

  it("ignores flag keys that are not config keys, so the CLI can pass its options whole", async () => {
    const resolved = await load({ flags: { model: "m", continue: true, print: "hi" } });
    expect(resolved.config.model).toBe("m");
  });

  it("names the flag with a bad value", async () => {
    const error = await loadError({ flags: { maxTurns: 0 } });
    expect(error.message).toBe("command-line flags: --max-turns must be above 0");
  });

  it("refuses a file that is not a JSON object", async () => {
    const file = await writeConfig(project, "[1, 2]");
    const error = await loadError();
    expect(error.message).toBe(`${file}: must hold a JSON object such as {"model": "..."}`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
