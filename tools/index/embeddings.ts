/**
 * An Embedder that asks an OpenAI-compatible embeddings endpoint (`POST {url}/embeddings` with
 * `{model, input}`), for the optional hybrid ranking. Off unless configured: RAG builds one only
 * when `RAG.embeddings` names a url and a model.
 */
import { ToolError } from "../errors.js";
import { isLoopbackHost } from "../network/addresses.js";
import type { Embedder } from "./code-index.js";

export interface EmbeddingsSettings {
  /** The API's base address, e.g. `http://127.0.0.1:11434/v1`. */
  url: string;
  model: string;
  /** The name of the environment variable that holds the API key (never the key itself). */
  apiKeyEnv?: string;
  /** How long one request may take (default 60 s). */
  timeoutMs?: number;
}

/** True when the URL parses and its host is this machine by address (see isLoopbackHost). */
function isLoopbackUrl(text: string): boolean {
  try {
    return isLoopbackHost(new URL(text).hostname);
  } catch {
    return false;
  }
}

/**
 * Reads `RAG.embeddings` from config; undefined when it is absent (the default: lexical ranking
 * only). Config may name only an endpoint on this machine — a repository's own config must not
 * send its code elsewhere; `CLIO_EMBEDDINGS_URL` in the environment (which only the user sets)
 * may name any http or https endpoint and takes precedence.
 */
export function embeddingsSettingsOf(config: unknown, env: NodeJS.ProcessEnv): EmbeddingsSettings | undefined {
  if (config === undefined || config === null) return undefined;
  const settings = { ...(config as Partial<EmbeddingsSettings>) };
  const fromEnvironment = env.CLIO_EMBEDDINGS_URL;
  const example =
    'Write e.g. RAG: { embeddings: { url: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", apiKeyEnv: "EMBEDDINGS_KEY" } }, or leave it out for lexical ranking only.';
  if (fromEnvironment !== undefined && fromEnvironment !== "") settings.url = fromEnvironment;
  else if (typeof settings.url === "string" && !isLoopbackUrl(settings.url)) {
    throw new ToolError(
      "not_configured",
      `RAG.embeddings.url ${settings.url} is not on this machine; config may name only a local embeddings server.`,
      "Set CLIO_EMBEDDINGS_URL in your environment to use a remote endpoint, or run one on 127.0.0.1.",
    );
  }
  if (typeof settings.url !== "string" || !/^https?:\/\//.test(settings.url) || typeof settings.model !== "string" || settings.model === "") {
    throw new ToolError("not_configured", "RAG.embeddings needs a url (http or https) and a model.", example);
  }
  return settings as EmbeddingsSettings;
}

export function createHttpEmbedder(settings: EmbeddingsSettings, io: { fetch: typeof fetch; env: NodeJS.ProcessEnv }): Embedder {
  const endpoint = `${settings.url.replace(/\/+$/, "")}/embeddings`;
  return async (texts) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    const key = settings.apiKeyEnv === undefined ? undefined : io.env[settings.apiKeyEnv];
    if (key !== undefined && key !== "") headers.authorization = `Bearer ${key}`;
    let response: Response;
    try {
      response = await io.fetch(endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: settings.model, input: texts }),
        signal: AbortSignal.timeout(settings.timeoutMs ?? 60_000),
      });
    } catch (error) {
      throw new ToolError(
        "network_error",
        `The embeddings endpoint ${endpoint} could not be reached: ${(error as Error).message}.`,
        "Start the embeddings server, fix RAG.embeddings.url, or remove RAG.embeddings for lexical ranking only.",
      );
    }
    if (!response.ok) {
      throw new ToolError(
        "http_error",
        `The embeddings endpoint ${endpoint} answered ${response.status}.`,
        "Check RAG.embeddings.model and the API key named by RAG.embeddings.apiKeyEnv.",
      );
    }
    const body = (await response.json().catch(() => undefined)) as { data?: Array<{ embedding?: unknown; index?: number }> } | undefined;
    const data = body?.data;
    if (
      !Array.isArray(data) ||
      data.length !== texts.length ||
      !data.every((entry) => Array.isArray(entry.embedding) && entry.embedding.every((value) => typeof value === "number"))
    ) {
      throw new ToolError(
        "unsupported_content",
        `The embeddings endpoint ${endpoint} did not return one vector of numbers per text.`,
        "Use an OpenAI-compatible embeddings endpoint ({data: [{embedding: [...]}]}).",
      );
    }
    // Entries carry their input's index; order by it when given.
    return [...data].sort((left, right) => (left.index ?? 0) - (right.index ?? 0)).map((entry) => entry.embedding as number[]);
  };
}
