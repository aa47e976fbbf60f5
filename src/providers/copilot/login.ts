/**
 * `clio login copilot`: GitHub's device flow (the person opens a page and types a code), then the
 * GitHub token is stored in the user's clio folder with 0600 permissions, where the Copilot
 * provider finds it when GITHUB_COPILOT_TOKEN is not set.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ApplicationError } from "../../errors.js";

/** GitHub's own addresses; tests point them at a local server. */
export const GITHUB_URL = "https://github.com";
/** The OAuth app Copilot editor integrations sign in with. */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";

export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  expiresInSeconds: number;
}

export interface DeviceLoginOptions {
  githubUrl?: string;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Shows the person where to go and what to type. */
  onCode(code: DeviceCode): void;
  signal?: AbortSignal;
}

/** The stored token's file: `~/.clio/copilot.json` (or under CLIO_HOME). */
export function copilotTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CLIO_HOME !== undefined && env.CLIO_HOME.trim() !== "" ? env.CLIO_HOME : os.homedir();
  return path.join(home, ".clio", "copilot.json");
}

async function postForm(options: DeviceLoginOptions, address: string, form: Record<string, string>): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(address, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw new ApplicationError("cancelled", "The sign-in was cancelled.");
    throw new ApplicationError("network_error", `Could not reach ${address} (${(error as Error).message}).`, "Check the network connection and try again.");
  }
  const text = await response.text();
  if (!response.ok) throw new ApplicationError("authentication_failed", `${address} answered HTTP ${response.status}: ${text.slice(0, 200)}`, "Try `clio login copilot` again.");
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ApplicationError("authentication_failed", `${address} answered with something that is not JSON: ${text.slice(0, 120)}`);
  }
}

/** Runs the device flow to its end and returns the GitHub token. */
export async function deviceLogin(options: DeviceLoginOptions): Promise<string> {
  const base = (options.githubUrl ?? GITHUB_URL).replace(/\/+$/, "");
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const code = await postForm(options, `${base}/login/device/code`, { client_id: COPILOT_CLIENT_ID, scope: "read:user" });
  if (typeof code.device_code !== "string" || typeof code.user_code !== "string" || typeof code.verification_uri !== "string") {
    throw new ApplicationError("authentication_failed", "GitHub's device-code answer lacks the code to show.", "Try `clio login copilot` again.");
  }
  const expiresIn = typeof code.expires_in === "number" ? code.expires_in : 900;
  options.onCode({ userCode: code.user_code, verificationUri: code.verification_uri, expiresInSeconds: expiresIn });
  let intervalMs = (typeof code.interval === "number" ? code.interval : 5) * 1000;
  const deadline = Date.now() + expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(intervalMs);
    if (options.signal?.aborted) throw new ApplicationError("cancelled", "The sign-in was cancelled.");
    const answer = await postForm(options, `${base}/login/oauth/access_token`, {
      client_id: COPILOT_CLIENT_ID,
      device_code: code.device_code,
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
    });
    if (typeof answer.access_token === "string") return answer.access_token;
    switch (answer.error) {
      case "authorization_pending":
        continue;
      case "slow_down":
        intervalMs = typeof answer.interval === "number" ? answer.interval * 1000 : intervalMs + 5000;
        continue;
      case "expired_token":
        throw new ApplicationError("authentication_failed", "The code expired before it was entered.", "Run `clio login copilot` again and enter the code within its time.");
      case "access_denied":
        throw new ApplicationError("authentication_failed", "The sign-in was refused on GitHub.", "Run `clio login copilot` again and approve it.");
      default:
        throw new ApplicationError(
          "authentication_failed",
          `GitHub answered: ${String(answer.error_description ?? answer.error ?? "no token")}.`,
          "Run `clio login copilot` again.",
        );
    }
  }
  throw new ApplicationError("authentication_failed", "The code expired before it was entered.", "Run `clio login copilot` again and enter the code within its time.");
}

/** Stores the GitHub token readable by its owner only (0600), replacing the file atomically. */
export async function storeCopilotToken(file: string, token: string, now = new Date()): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeAtomicallyPrivate(file, `${JSON.stringify({ githubToken: token, savedAt: now.toISOString() }, null, 2)}\n`);
}

/** Like writeAtomically, but the temporary file is created 0600 before the token is written into it. */
async function writeAtomicallyPrivate(file: string, content: string): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}-${Date.now()}`;
  const handle = await fs.open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file).catch(async (error: unknown) => {
    await fs.rm(temporary, { force: true });
    throw error;
  });
}

/** The stored GitHub token, if there is a readable, well-formed file. */
export async function readCopilotToken(file: string): Promise<string | undefined> {
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as { githubToken?: unknown };
    return typeof value.githubToken === "string" && value.githubToken !== "" ? value.githubToken : undefined;
  } catch {
    throw new ApplicationError("corrupt_file", `${file} is not valid JSON.`, "Delete it and sign in again with `clio login copilot`.");
  }
}
