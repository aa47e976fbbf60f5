/**
 * GitHub Copilot's two tokens: the person's GitHub token (from GITHUB_COPILOT_TOKEN or the file
 * `clio login copilot` wrote) is exchanged for a short-lived Copilot API token, which names the
 * API address to use. The Copilot token is refreshed a minute before it expires (or when the
 * server's `refresh_in` says so), one exchange at a time.
 */
import { ApplicationError } from "../../errors.js";

/** Where the exchange happens; tests point it at a local server. */
export const COPILOT_TOKEN_URL = "https://api.github.com/copilot_internal/v2/token";
/** The API address when the exchange names none. */
export const COPILOT_API_URL = "https://api.githubcopilot.com";

/** Headers Copilot's API expects from an editor integration. */
export const copilotHeaders = (version: string): Record<string, string> => ({
  "Editor-Version": `clio/${version}`,
  "Editor-Plugin-Version": `clio/${version}`,
  "Copilot-Integration-Id": "vscode-chat",
  "User-Agent": `clio/${version}`,
});

export interface CopilotToken {
  token: string;
  /** The chat API's root (e.g. https://api.individual.githubcopilot.com). */
  apiUrl: string;
  /** When to exchange again, ms since the epoch. */
  refreshAt: number;
}

export interface CopilotTokenOptions {
  githubToken: string;
  exchangeUrl?: string;
  version: string;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

/** How long before expiry the token is replaced. */
const REFRESH_MARGIN_MS = 60_000;

export class CopilotTokenSource {
  private current: CopilotToken | undefined;
  private exchanging: Promise<CopilotToken> | undefined;
  /** How many exchanges were made (for tests and the log). */
  exchanges = 0;

  constructor(private readonly options: CopilotTokenOptions) {}

  /** A Copilot token that is good for at least another minute. */
  async token(): Promise<CopilotToken> {
    const now = (this.options.now ?? Date.now)();
    if (this.current && now < this.current.refreshAt) return this.current;
    this.exchanging ??= this.exchange().finally(() => {
      this.exchanging = undefined;
    });
    this.current = await this.exchanging;
    return this.current;
  }

  /** Forgets the token (after the API refused it), so the next call exchanges again. */
  invalidate(): void {
    this.current = undefined;
  }

  private async exchange(): Promise<CopilotToken> {
    const url = this.options.exchangeUrl ?? COPILOT_TOKEN_URL;
    let response: Response;
    try {
      response = await (this.options.fetch ?? globalThis.fetch)(url, {
        headers: { Authorization: `token ${this.options.githubToken}`, Accept: "application/json", ...copilotHeaders(this.options.version) },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      throw new ApplicationError("provider_error", `Could not reach GitHub to get a Copilot token (${(error as Error).message}).`, "Check the network connection and try again.");
    }
    const text = await response.text();
    if (response.status === 401 || response.status === 403 || response.status === 404) {
      throw new ApplicationError(
        "not_configured",
        `GitHub refused the Copilot token exchange (HTTP ${response.status}): the GitHub token is not valid or has no Copilot subscription.`,
        "Sign in again with `clio login copilot`, or set GITHUB_COPILOT_TOKEN to a token of an account with Copilot.",
      );
    }
    if (!response.ok)
      throw new ApplicationError("provider_error", `The Copilot token exchange failed with HTTP ${response.status}: ${text.slice(0, 200)}`, "Try again in a moment.");
    let body: { token?: unknown; expires_at?: unknown; refresh_in?: unknown; endpoints?: { api?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ApplicationError("provider_error", `The Copilot token exchange answered with something that is not JSON: ${text.slice(0, 120)}`);
    }
    if (typeof body.token !== "string" || typeof body.expires_at !== "number") {
      throw new ApplicationError(
        "provider_error",
        "The Copilot token exchange answered without a token and its expiry.",
        "Try again; if it repeats, sign in again with `clio login copilot`.",
      );
    }
    this.exchanges++;
    const now = (this.options.now ?? Date.now)();
    const expiresAt = body.expires_at * 1000;
    const byRefreshIn = typeof body.refresh_in === "number" ? now + body.refresh_in * 1000 : Number.POSITIVE_INFINITY;
    const apiUrl = typeof body.endpoints?.api === "string" && /^https?:\/\//.test(body.endpoints.api) ? body.endpoints.api : COPILOT_API_URL;
    return { token: body.token, apiUrl: apiUrl.replace(/\/+$/, ""), refreshAt: Math.min(expiresAt - REFRESH_MARGIN_MS, byRefreshIn) };
  }
}
