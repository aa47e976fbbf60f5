/**
 * The GitHub Copilot provider: the chat completions endpoint Copilot's token names, spoken
 * through the OpenAI-compatible provider with the current Copilot token. A token past its
 * refresh time is exchanged again before a request; a request refused with 401 (the token was
 * revoked early) exchanges once more and tries again.
 */
import { ApplicationError } from "../../errors.js";
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from "../openai-compatible.js";
import type { ModelEvent, ModelProvider, ModelRequest } from "../types.js";
import { type CopilotToken, type CopilotTokenSource, copilotHeaders } from "./token.js";

export interface CopilotProviderOptions extends Omit<OpenAICompatibleOptions, "name" | "api" | "baseURL" | "apiKey" | "apiKeyEnv"> {
  tokens: CopilotTokenSource;
  version: string;
}

export class CopilotProvider implements ModelProvider {
  readonly name = "copilot";
  readonly api = "chat" as const;
  readonly model: string;
  private inner: { token: CopilotToken; provider: OpenAICompatibleProvider } | undefined;

  constructor(private readonly options: CopilotProviderOptions) {
    this.model = options.model;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    for (let attempt = 0; ; attempt++) {
      const provider = await this.providerForToken();
      let yielded = false;
      try {
        for await (const event of provider.stream(request)) {
          yielded = true;
          yield event;
        }
        return;
      } catch (error) {
        if (attempt === 0 && !yielded && isUnauthorized(error)) {
          this.options.tokens.invalidate();
          continue;
        }
        throw error;
      }
    }
  }

  private async providerForToken(): Promise<OpenAICompatibleProvider> {
    const token = await this.options.tokens.token();
    if (this.inner?.token !== token) {
      const { tokens: _tokens, version, headers, ...rest } = this.options;
      this.inner = {
        token,
        provider: new OpenAICompatibleProvider({
          ...rest,
          name: "copilot",
          api: "chat",
          baseURL: token.apiUrl,
          apiKey: token.token,
          headers: { ...copilotHeaders(version), ...headers },
        }),
      };
    }
    return this.inner.provider;
  }
}

function isUnauthorized(error: unknown): boolean {
  return ApplicationError.isInstance(error) && /\b401\b/.test(error.message);
}
