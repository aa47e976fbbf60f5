/**
 * Trust of a project folder: the one place that decides what a repository's own
 * `.clio/config.json` may do by itself.
 *
 * - **Loosenings** (a mode looser than the person's, allow rules, hosts WEB/GIT may reach on
 *   this machine or a private network, EXEC sandbox or environment relaxations, and anything
 *   that starts programs) apply only in a folder the person trusted: `trustedFolders` in their
 *   own `~/.clio/config.json`, the chat's one-time question, or `--trust-project` for one run.
 * - **Tightenings** (deny rules, a stricter mode, other settings) always apply.
 * - **Never from a project**, trusted or not: secrets and where they go (protocol settings named
 *   like `credentials`, `token`, `password`) and `trustedFolders` itself.
 *
 * `projectLoosenings` is the small API other parts route new keys through (e.g. i17's
 * `mcpServers`/`shellProtocols`/`hooks`: add the key to `PROGRAM_STARTING_KEYS`).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeAtomically } from "../../tools/atomic-file.js";
import { ApplicationError } from "../errors.js";
import { parseJsonText } from "./json-text.js";
import { isSecretKey, type ConfigLayer, type PermissionMode } from "./schema.js";

/** One thing a project's config loosens. */
export interface Loosening {
  /** The config key: `permissionMode`, `permissions.allow`, `protocols.WEB.allowHosts`, `mcpServers`. */
  key: string;
  value: unknown;
  /** What it allows, in the person's words. */
  description: string;
  /** The file that declares it, when that is not the project's config file (a project's `.mcp.json`). */
  file?: string;
}

/** Top-level keys whose values start programs; from a project they count as loosenings whole. */
export const PROGRAM_STARTING_KEYS: readonly string[] = ["mcpServers", "shellProtocols", "hooks"];

const MODE_RANK: Record<PermissionMode, number> = { plan: 0, ask: 1, "auto-edit": 2, yolo: 3 };

/**
 * Protocol settings that widen what a protocol may do, with the test of a value that loosens.
 * Keyed by setting name so every protocol that adopts the name is covered.
 */
const LOOSENING_SETTINGS: Record<string, { loosens: (value: unknown) => boolean; description: string }> = {
  allowHosts: { loosens: (value) => Array.isArray(value) && value.length > 0, description: "reach these hosts on this machine or a private network" },
  sandbox: { loosens: (value) => value === false, description: "run commands outside the sandbox" },
  writablePaths: { loosens: (value) => Array.isArray(value) && value.length > 0, description: "let sandboxed commands write these paths" },
  network: { loosens: (value) => value === true || value === "allow", description: "let sandboxed commands use the network" },
  passEnv: { loosens: (value) => Array.isArray(value) && value.length > 0, description: "pass these environment variables (which may hold secrets) to commands" },
  environment: {
    loosens: (value) =>
      typeof value === "object" && value !== null && Array.isArray((value as { include?: unknown }).include) && (value as { include: unknown[] }).include.length > 0,
    description: "pass these environment variables (which may hold secrets) to commands",
  },
};

/**
 * Everything `project` loosens compared with what would apply without it: `belowMode` is the
 * mode from the person's config or the default.
 */
export function projectLoosenings(project: ConfigLayer, belowMode: PermissionMode): Loosening[] {
  const found: Loosening[] = [];
  if (project.permissionMode !== undefined && MODE_RANK[project.permissionMode] > MODE_RANK[belowMode]) {
    found.push({ key: "permissionMode", value: project.permissionMode, description: `permission mode ${project.permissionMode} instead of ${belowMode}` });
  }
  for (const rule of project.permissions?.allow ?? []) found.push({ key: "permissions.allow", value: rule, description: `run ${rule} without asking` });
  for (const [protocol, settings] of Object.entries(project.protocols ?? {})) {
    for (const [setting, value] of Object.entries(settings)) {
      const known = LOOSENING_SETTINGS[setting];
      if (known?.loosens(value)) found.push({ key: `protocols.${protocol.toUpperCase()}.${setting}`, value, description: `${protocol.toUpperCase()}: ${known.description}` });
    }
  }
  const extra = project as Record<string, unknown>;
  for (const key of PROGRAM_STARTING_KEYS) {
    if (extra[key] !== undefined) found.push({ key, value: extra[key], description: `start the programs named in ${key}` });
  }
  return found;
}

/** The project layer with the given loosenings taken out (what applies in an untrusted folder). */
export function withoutLoosenings(project: ConfigLayer, loosenings: readonly Loosening[]): ConfigLayer {
  const keys = new Set(loosenings.map((loosening) => loosening.key));
  const result: Record<string, unknown> = { ...project };
  if (keys.has("permissionMode")) delete result.permissionMode;
  if (keys.has("permissions.allow") && project.permissions) result.permissions = { ...project.permissions, allow: [] };
  for (const key of PROGRAM_STARTING_KEYS) if (keys.has(key)) delete result[key];
  if (project.protocols) {
    result.protocols = Object.fromEntries(
      Object.entries(project.protocols).map(([protocol, settings]) => [
        protocol,
        Object.fromEntries(Object.entries(settings).filter(([setting]) => !keys.has(`protocols.${protocol.toUpperCase()}.${setting}`))),
      ]),
    );
  }
  return result as ConfigLayer;
}

/** What a project may never set: secrets and where they go, and trust itself. Returns the layer without them and their keys. */
export function withoutForbidden(project: ConfigLayer): { layer: ConfigLayer; dropped: string[] } {
  const dropped: string[] = [];
  const result: Record<string, unknown> = { ...project };
  if (project.trustedFolders !== undefined) {
    delete result.trustedFolders;
    dropped.push("trustedFolders");
  }
  if (project.protocols) {
    result.protocols = Object.fromEntries(
      Object.entries(project.protocols).map(([protocol, settings]) => {
        const kept = Object.entries(settings).filter(([setting]) => {
          if (!isSecretKey(setting)) return true;
          dropped.push(`protocols.${protocol.toUpperCase()}.${setting}`);
          return false;
        });
        return [protocol, Object.fromEntries(kept)];
      }),
    );
  }
  return { layer: result as ConfigLayer, dropped };
}

/** True when `projectRoot` is one of the person's trusted folders (compared as real paths). */
export async function isTrustedFolder(projectRoot: string, trustedFolders: readonly string[]): Promise<boolean> {
  const real = async (folder: string) => fs.realpath(folder).catch(() => path.resolve(folder));
  const root = await real(projectRoot);
  for (const folder of trustedFolders) if ((await real(folder)) === root) return true;
  return false;
}

/** Adds `projectRoot` to `trustedFolders` in the person's own config file, keeping everything else in it. */
export async function rememberTrustedFolder(userFile: string, projectRoot: string): Promise<void> {
  let values: Record<string, unknown> = {};
  const text = await fs.readFile(userFile, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (text !== undefined) {
    const parsed = parseJsonText(text.startsWith("\uFEFF") ? text.slice(1) : text);
    if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
      throw new ApplicationError(
        "invalid_config",
        `${userFile} is not a JSON object, so the trusted folder was not added.`,
        `Fix the file, or add "trustedFolders": ["${projectRoot}"] yourself.`,
      );
    }
    values = parsed.value as Record<string, unknown>;
  }
  const folders = Array.isArray(values.trustedFolders) ? values.trustedFolders.filter((folder): folder is string => typeof folder === "string") : [];
  if (!folders.includes(projectRoot)) folders.push(projectRoot);
  await fs.mkdir(path.dirname(userFile), { recursive: true });
  await writeAtomically(userFile, `${JSON.stringify({ ...values, trustedFolders: folders }, null, 2)}\n`);
}

/** The project part of a resolved config: where it is, whether it is trusted, what it loosens and what was set aside. */
export interface ProjectTrust {
  root: string;
  /** The project's `.clio/config.json` (or `.yaml`); its `.mcp.json` when that is the only file. */
  file: string;
  trusted: boolean;
  /** Everything the project's config loosens (applied only when trusted). */
  loosenings: Loosening[];
  /** Keys a project may never set, which were ignored. */
  forbidden: string[];
}

/** The question the chat asks once per folder. */
export function trustQuestion(trust: ProjectTrust): string {
  const lines = trust.loosenings.map((loosening) => `  - ${keyOf(trust, loosening)}: ${formatValue(loosening.value)} (${loosening.description})`);
  const files = filesOf(trust);
  return `${files.join(" and ")} would loosen what clio asks before doing:\n${lines.join("\n")}\nTrust ${trust.root} and apply these (remembered in your ~/.clio/config.json)? [y/N] `;
}

/** The stderr warning when there is no one to ask: what was ignored and the two ways to trust. */
export function untrustedWarning(trust: ProjectTrust, userFile: string): string {
  const keys = trust.loosenings.map((loosening) => `${keyOf(trust, loosening)}=${formatValue(loosening.value)}`).join(", ");
  const files = filesOf(trust);
  return (
    `clio: ignored what ${files.join(" and ")} ${files.length === 1 ? "loosens" : "loosen"} (${keys}) because ${trust.root} is not a trusted folder. ` +
    `To trust it: pass --trust-project, or add "trustedFolders": ["${trust.root}"] to ${userFile}.`
  );
}

/** The project's files that loosen something: its config file and any other (`.mcp.json`). */
function filesOf(trust: ProjectTrust): string[] {
  const files = trust.loosenings.map((loosening) => loosening.file ?? trust.file);
  return [...new Set(files.length === 0 ? [trust.file] : files)];
}

/** A loosening's key, with its file's name when it is not the project's config file. */
function keyOf(trust: ProjectTrust, loosening: Loosening): string {
  return loosening.file === undefined || loosening.file === trust.file ? loosening.key : `${path.basename(loosening.file)} ${loosening.key}`;
}

/**
 * Tells what a project's config could not do, when there was no one to ask (or the person said
 * no): the forbidden keys it held and the loosenings left out.
 */
export function reportProjectTrust(project: ProjectTrust | undefined, userFile: string, warn: (text: string) => void): void {
  if (project === undefined) return;
  if (project.forbidden.length > 0) warn(forbiddenWarning(project));
  if (!project.trusted && project.loosenings.length > 0) warn(untrustedWarning(project, userFile));
}

/** The warning for keys a project may never set. */
export function forbiddenWarning(trust: ProjectTrust): string {
  return `clio: ignored ${trust.forbidden.join(", ")} in ${trust.file}: secrets, where they are sent and trusted folders come only from your own ~/.clio/config.json.`;
}

function formatValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
