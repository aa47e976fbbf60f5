/**
 * EXEC's sandbox: every command and background job runs under bubblewrap (`bwrap`, the Debian
 * package `bubblewrap`) when it is installed:
 *
 * - the whole file system read-only, except the workspace, the temp folder and the paths the
 *   person configured (`EXEC.writablePaths`); the workspace's `.clio` stays read-only;
 * - a PID namespace (`--unshare-pid`) whose processes all die when the command's shell ends,
 *   double forks and `setsid` included, and `--die-with-parent`, so nothing outlives clio;
 * - `--new-session`, so a command cannot push keystrokes into the person's terminal;
 * - the network as configured: `EXEC.network` "allow" (default: the host's network, so
 *   package managers work and commands reach background servers on loopback) or "none" (a
 *   network namespace of its own with only loopback).
 *
 * `EXEC.sandbox: false` turns it off. Without bwrap, commands run as before (process groups,
 * an environment tag that finds escaped processes, bounded waits) and EXEC says so once.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface SandboxSettings {
  /** False turns the sandbox off (EXEC.sandbox). */
  enabled: boolean;
  /** Absolute paths writable besides the workspace and the temp folder (EXEC.writablePaths). */
  writablePaths: readonly string[];
  /** "allow" (the host's network) or "none" (loopback only). */
  network: "allow" | "none";
}

/** Reads EXEC's sandbox settings; `~` in a path means the home folder. */
export function readSandboxSettings(section: { sandbox?: unknown; writablePaths?: unknown; network?: unknown }, homeDir = os.homedir()): SandboxSettings {
  const paths = Array.isArray(section.writablePaths) ? section.writablePaths.filter((entry): entry is string => typeof entry === "string" && entry !== "") : [];
  return {
    enabled: section.sandbox !== false,
    writablePaths: paths.map((entry) => (entry === "~" ? homeDir : entry.startsWith("~/") ? path.join(homeDir, entry.slice(2)) : path.resolve(entry))),
    network: section.network === "none" || section.network === false ? "none" : "allow",
  };
}

let available: boolean | undefined;

/** True when bwrap is installed and can make namespaces here (checked once per process). */
export function bubblewrapAvailable(): boolean {
  available ??= spawnSync("bwrap", ["--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent", "true"], { stdio: "ignore", timeout: 5000 }).status === 0;
  return available;
}

/** What a sandboxed launch needs to know about where it runs. */
export interface SandboxPlace {
  /** The workspace root (real path). */
  workspace: string;
  /** The folder the command runs in (real path, inside the workspace). */
  cwd: string;
}

/** `file args` wrapped in bwrap per `settings`. */
export function sandboxed(file: string, args: readonly string[], place: SandboxPlace, settings: SandboxSettings): { file: string; args: string[] } {
  const writable = [place.workspace, os.tmpdir(), ...settings.writablePaths].filter((entry, index, all) => all.indexOf(entry) === index && existsSync(entry));
  const clioFolder = path.join(place.workspace, ".clio");
  const wrapper = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const entry of writable) wrapper.push("--bind", entry, entry);
  if (existsSync(clioFolder)) wrapper.push("--ro-bind", clioFolder, clioFolder);
  wrapper.push("--unshare-pid", "--die-with-parent", "--new-session");
  if (settings.network === "none") wrapper.push("--unshare-net");
  wrapper.push("--chdir", place.cwd, "--", file, ...args);
  return { file: "bwrap", args: wrapper };
}
