/**
 * Loads clio's configuration from six layers, highest first:
 *
 *   flags > environment (CLIO_*) > project `.clio/config.json` > project `.mcp.json` (its
 *   mcpServers only) > user `~/.clio/config.json` > defaults
 *
 * The project file is the nearest `.clio/config.json` in the current folder or a parent; the
 * project root is the folder holding its `.clio` (else the current folder), and `.mcp.json` is
 * read there. What a project loosens applies only in a trusted folder (trust.ts). The
 * home folder is `homeDir`, else `CLIO_HOME`, else the OS home. Every value comes back with
 * where it came from, so `clio config` can show it. Relative `workspace` and `sessionDir`
 * values resolve against the folder that holds the `.clio` folder (for files) or the current
 * folder (for flags and environment); a leading `~` means the home folder.
 */
import { promises as fs, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ApplicationError } from "../errors.js";
import { mergeExtensions, type Extensions } from "./extensions.js";
import { describeIssue, formatKeyPath } from "./issues.js";
import { parseJsonText } from "./json-text.js";
import { PROJECT_MCP_FILE, readProjectMcpFile } from "./mcp-json.js";
import { isTrustedFolder, projectLoosenings, withoutForbidden, withoutLoosenings, type ProjectTrust } from "./trust.js";
import { type ClioConfig, type ConfigLayer, type PermissionMode, type ScalarKey, configLayerSchema, defaultValues, environmentNames, scalarKeys } from "./schema.js";

/** Where a value came from. */
export type ConfigSource = "flag" | "default" | `env:${string}` | `project:${string}` | `user:${string}`;

/** One line of the config report: a key, its value, its source. */
export interface ConfigEntry {
  /** `model`, `permissions.allow`, `protocols.WEB.allowHosts`. */
  key: string;
  value: unknown;
  source: ConfigSource;
}

export interface ResolvedConfig {
  config: ClioConfig;
  /** Where each single-valued key came from (`default` also for keys left unset). */
  sources: Record<ScalarKey, ConfigSource>;
  /** Every value with its source, in report order; permission rules one entry each. */
  entries: ConfigEntry[];
  /** The files looked at: the user file's path (read if it exists) and the project file found, if any. */
  files: { user: string; userFound: boolean; project?: string };
  /** Things a person should know that do not stop clio (a project's `.mcp.json` left out). */
  warnings: string[];
  /** The project's config: trusted or not, what it loosens, what was ignored (see trust.ts). */
  project?: ProjectTrust;
}

export interface LoadConfigOptions {
  /** The folder clio was started in; the project file is searched from here upward. */
  cwd: string;
  /** Environment variables; default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Values from command-line flags, keyed as in the config file. `undefined` values and keys
   * that are not config keys are ignored, so the CLI may pass its parsed options whole.
   */
  flags?: Record<string, unknown>;
  /** The home folder; default `env.CLIO_HOME`, then `os.homedir()`. */
  homeDir?: string;
  /** Trust the project folder for this run (`--trust-project`). */
  trustProject?: boolean;
}

interface Layer {
  source: ConfigSource;
  values: ConfigLayer;
  /** Relative paths in this layer resolve against this folder. */
  baseDir: string;
}

const pathKeys: ReadonlySet<ScalarKey> = new Set(["workspace", "sessionDir", "systemPromptFile"]);
const knownKeys = Object.keys(configLayerSchema.shape).filter((key) => key !== "$schema" && key !== "trustedFolders");

/** Reads and merges every layer. Throws `invalid_config` naming the file, variable or flag and the key. */
export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const homeDir = path.resolve(options.homeDir ?? nonEmpty(env.CLIO_HOME) ?? os.homedir());
  const userFile = (await configFileIn(path.join(homeDir, ".clio"))) ?? path.join(homeDir, ".clio", "config.json");
  const projectFile = await findProjectFile(cwd, userFile);

  const layers: Layer[] = [];
  const userValues = await readConfigFile(userFile);
  if (userValues) layers.push({ source: `user:${userFile}`, values: userValues, baseDir: homeDir });
  const trustedFolders = (userValues?.trustedFolders ?? []).map((folder) => resolvePath(folder, homeDir, homeDir));
  const {
    layers: projectLayers,
    project,
    warnings,
  } = await readProject({
    projectFile,
    root: projectFile ? path.dirname(path.dirname(projectFile)) : cwd,
    homeDir,
    belowMode: userValues?.permissionMode ?? defaultValues.permissionMode,
    isTrusted: async (root) => options.trustProject === true || (await isTrustedFolder(root, trustedFolders)),
  });
  layers.push(...projectLayers);
  layers.push(...environmentLayers(env, cwd));
  if (options.flags) layers.push({ source: "flag", values: checkFlags(options.flags), baseDir: cwd });

  return { ...merge(layers, { cwd, homeDir, userFile, userFound: userValues !== undefined, projectFile }), warnings, ...(project ? { project } : {}) };
}

/**
 * The project's layers, lowest first: its `.mcp.json` servers (Claude Code's project file), then
 * its own `.clio/config.json`, so for the same server key the clio file wins. What they loosen
 * (starting programs, a looser mode…) applies only in a trusted folder (trust.ts).
 */
async function readProject(context: {
  projectFile: string | undefined;
  root: string;
  homeDir: string;
  belowMode: PermissionMode;
  isTrusted: (root: string) => Promise<boolean>;
}): Promise<{ layers: Layer[]; project?: ProjectTrust; warnings: string[] }> {
  const { projectFile, root } = context;
  const values = projectFile ? await readConfigFile(projectFile) : undefined;
  const mcpFile = await readProjectMcpFile(root);
  const warnings = mcpFile?.warnings ?? [];
  const mcpServers = mcpFile && Object.keys(mcpFile.servers).length > 0 ? mcpFile.servers : undefined;
  if (values === undefined && mcpServers === undefined) return { layers: [], warnings };
  if (values?.workspace !== undefined) await checkProjectWorkspace(resolvePath(values.workspace, root, context.homeDir), root, projectFile!);
  const { layer, dropped } = withoutForbidden(values ?? {});
  const configLoosenings = values ? projectLoosenings(layer, context.belowMode) : [];
  const loosenings = [...configLoosenings];
  const trusted = await context.isTrusted(root);
  const layers: Layer[] = [];
  if (mcpFile && mcpServers) {
    loosenings.push({ key: "mcpServers", value: mcpServers, description: `start the programs named in mcpServers of ${PROJECT_MCP_FILE}`, file: mcpFile.file });
    if (trusted) layers.push({ source: `project:${mcpFile.file}`, values: { mcpServers } as ConfigLayer, baseDir: root });
  }
  if (projectFile && values) {
    layers.push({ source: `project:${projectFile}`, values: trusted ? layer : withoutLoosenings(layer, configLoosenings), baseDir: root });
  }
  const file = projectFile && values ? projectFile : mcpFile!.file;
  return { layers, warnings, project: { root, file, trusted, loosenings, forbidden: dropped } };
}

/** `config.json` or `config.yaml` in `folder`, whichever exists; both at once is an error naming them. */
async function configFileIn(folder: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of ["config.json", "config.yaml", "config.yml"]) if (isFile(path.join(folder, name))) found.push(path.join(folder, name));
  if (found.length > 1) {
    throw new ApplicationError(
      "invalid_config",
      `Two config files sit side by side: ${found.join(" and ")}; clio would not know which one counts.`,
      "Keep one of them (the keys are the same in both) and delete or rename the other.",
    );
  }
  return found[0];
}

function merge(layers: Layer[], context: { cwd: string; homeDir: string; userFile: string; userFound: boolean; projectFile?: string }): Omit<ResolvedConfig, "warnings"> {
  const values: Partial<Record<ScalarKey, unknown>> = {
    ...defaultValues,
    workspace: context.cwd,
    sessionDir: path.join(context.homeDir, ".clio", "sessions"),
  };
  const sources = Object.fromEntries(scalarKeys.map((key) => [key, "default"])) as Record<ScalarKey, ConfigSource>;
  const permissions = { allow: [] as string[], deny: [] as string[] };
  const ruleEntries: ConfigEntry[] = [];
  const protocols: Record<string, Record<string, unknown>> = {};
  const protocolSources = new Map<string, ConfigSource>();
  const extensions: Extensions = { mcpServers: {}, shellProtocols: {} };

  for (const layer of layers) {
    for (const key of scalarKeys) {
      const value = layer.values[key];
      if (value === undefined) continue;
      values[key] = pathKeys.has(key) ? resolvePath(value as string, layer.baseDir, context.homeDir) : value;
      sources[key] = layer.source;
    }
    for (const list of ["allow", "deny"] as const) {
      for (const rule of layer.values.permissions?.[list] ?? []) {
        if (permissions[list].includes(rule)) continue;
        permissions[list].push(rule);
        ruleEntries.push({ key: `permissions.${list}`, value: rule, source: layer.source });
      }
    }
    mergeExtensions(extensions, layer.values, layer.source);
    for (const [name, settings] of Object.entries(layer.values.protocols ?? {})) {
      const protocol = name.toUpperCase();
      protocols[protocol] ??= {};
      for (const [setting, value] of Object.entries(settings)) {
        protocols[protocol][setting] = value;
        protocolSources.set(`${protocol}\u0000${setting}`, layer.source);
      }
    }
  }

  const entries: ConfigEntry[] = scalarKeys.map((key) => ({ key, value: values[key], source: sources[key] }));
  entries.push(...ruleEntries);
  for (const [protocol, settings] of Object.entries(protocols)) {
    for (const [setting, value] of Object.entries(settings)) {
      entries.push({ key: `protocols.${protocol}.${setting}`, value, source: protocolSources.get(`${protocol}\u0000${setting}`)! });
    }
  }

  for (const [key, server] of Object.entries(extensions.mcpServers)) entries.push(...extensionEntries(`mcpServers.${key}`, server.config, server.source));
  for (const [name, protocol] of Object.entries(extensions.shellProtocols))
    entries.push({ key: `shellProtocols.${name}`, value: Object.keys(protocol.config.actions), source: protocol.source as ConfigSource });

  const config = { ...values, permissions, protocols, ...extensions } as ClioConfig;
  for (const key of scalarKeys) if (config[key] === undefined) delete config[key];
  return {
    config,
    sources,
    entries,
    files: { user: context.userFile, userFound: context.userFound, ...(context.projectFile ? { project: context.projectFile } : {}) },
  };
}

/** One entry per setting of a server; env and headers one entry per name, so secrets are masked by name. */
function extensionEntries(prefix: string, settings: object, source: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  for (const [setting, value] of Object.entries(settings)) {
    if ((setting === "env" || setting === "headers") && typeof value === "object" && value !== null) {
      for (const [name, text] of Object.entries(value)) entries.push({ key: `${prefix}.${setting}.${name}`, value: text, source: source as ConfigSource });
    } else entries.push({ key: `${prefix}.${setting}`, value, source: source as ConfigSource });
  }
  return entries;
}

/**
 * A project's own file comes with the repository, so it may not widen the workspace beyond the
 * project: the model is confined to the workspace, and `"workspace": "/"` would undo that.
 */
async function checkProjectWorkspace(workspace: string, projectRoot: string, file: string): Promise<void> {
  const real = async (folder: string) => fs.realpath(folder).catch(() => folder);
  const inside = path.relative(await real(projectRoot), await real(workspace));
  if (inside === "" || (inside !== ".." && !inside.startsWith(`..${path.sep}`) && !path.isAbsolute(inside))) return;
  throw new ApplicationError(
    "invalid_config",
    `${file}: workspace ${workspace} is outside the project ${projectRoot}; a project's own config may only name the project folder or a folder inside it.`,
    "Remove workspace from that file, or choose the folder yourself: --workspace DIR, or workspace in your own ~/.clio/config.json.",
  );
}

/** The nearest `.clio/config.json` (or `.yaml`) in `cwd` or a parent, never the user's own file. */
async function findProjectFile(cwd: string, userFile: string): Promise<string | undefined> {
  for (let folder = cwd; ; folder = path.dirname(folder)) {
    const clioFolder = path.join(folder, ".clio");
    if (clioFolder !== path.dirname(userFile)) {
      const candidate = await configFileIn(clioFolder);
      if (candidate !== undefined) return candidate;
    }
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** Config files are looked for with blocking calls: asynchronous, each of the dozen or so stats was a round trip to the thread pool, about 3 ms of every command's start in all. */
function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** Reads one config file; undefined if it does not exist. */
async function readConfigFile(file: string): Promise<ConfigLayer | undefined> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ApplicationError("invalid_config", `${file}: cannot be read (${(error as Error).message})`, "Make the file readable, or remove it.");
  }
  // Editors on Windows save UTF-8 with a byte order mark; JSON.parse refuses it.
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (/\.ya?ml$/.test(file)) return checkLayer(await parseYamlConfig(body, file), file, formatKeyPath);
  const parsed = parseJsonText(body);
  if (!parsed.ok) {
    throw new ApplicationError(
      "invalid_config",
      `${file}:${parsed.line}:${parsed.column}: invalid JSON: ${parsed.message}`,
      `Fix the JSON at line ${parsed.line}, column ${parsed.column} (keys and strings in double quotes, no trailing commas).`,
    );
  }
  if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    throw new ApplicationError("invalid_config", `${file}: must hold a JSON object such as {"model": "..."}`, `Known keys: ${knownKeys.join(", ")}.`);
  }
  return checkLayer(parsed.value, file, formatKeyPath);
}

/** A YAML config file's mapping; errors name the line and column. */
async function parseYamlConfig(text: string, file: string): Promise<unknown> {
  const { parseYamlText } = await import("./yaml-text.js");
  const parsed = parseYamlText(text);
  if (!parsed.ok) {
    throw new ApplicationError(
      "invalid_config",
      `${file}:${parsed.line}:${parsed.column}: invalid YAML: ${parsed.message}`,
      `Fix the YAML at line ${parsed.line}, column ${parsed.column} (indent with spaces, "key: value" pairs).`,
    );
  }
  const { value } = parsed;
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ApplicationError("invalid_config", `${file}: must hold a mapping of keys such as "model: qwen2.5-coder"`, `Known keys: ${knownKeys.join(", ")}.`);
  }
  return value;
}

function checkLayer(values: unknown, where: string, nameKey: (path: readonly (string | number)[]) => string): ConfigLayer {
  const result = configLayerSchema.safeParse(values);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => describeIssue(issue, knownKeys, nameKey));
  throw new ApplicationError("invalid_config", `${where}: ${problems.join("; ")}`, `Fix or remove the value in ${where}; see "clio config" for every key and its current value.`);
}

/** One layer per CLIO_* variable that is set, so each value names its own variable. */
function environmentLayers(env: Record<string, string | undefined>, cwd: string): Layer[] {
  const layers: Layer[] = [];
  for (const [name, key] of Object.entries(environmentNames)) {
    const text = nonEmpty(env[name]);
    if (text === undefined) continue;
    const value = NUMERIC_KEYS.has(key) ? toNumber(text) : text;
    layers.push({ source: `env:${name}`, values: checkLayer({ [key]: value }, `${name}=${JSON.stringify(text)}`, () => "the value"), baseDir: cwd });
  }
  return layers;
}

function checkFlags(flags: Record<string, unknown>): ConfigLayer {
  const defined = Object.fromEntries(Object.entries(flags).filter(([key, value]) => value !== undefined && knownKeys.includes(key)));
  return checkLayer(defined, "command-line flags", ([first = "", ...rest]) => {
    const flag = `--${String(first).replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    return rest.length === 0 ? flag : `${flag} ${formatKeyPath(rest)}`;
  });
}

const NUMERIC_KEYS = new Set<string>(["maxTurns", "contextWindow", "requestTimeout", "idleTimeout", "temperature", "topP", "maxTokens"]);

function toNumber(text: string): number | string {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : text;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === "" ? undefined : text;
}

function resolvePath(value: string, baseDir: string, homeDir: string): string {
  if (value === "~") return homeDir;
  if (value.startsWith("~/")) return path.join(homeDir, value.slice(2));
  return path.resolve(baseDir, value);
}
