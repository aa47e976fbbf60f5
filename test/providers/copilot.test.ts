/**
 * The Copilot provider against local servers on 127.0.0.1: GitHub's device flow and token
 * exchange (a small server here) and the chat completions endpoint (the OpenAI test server,
 * whose address the exchange names, as Copilot's does).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createProvider, resolveProviderSettings, type ModelEvent, type ModelProvider } from "../../src/providers/index.js";
import { CopilotTokenSource } from "../../src/providers/copilot/token.js";
import { deviceLogin, readCopilotToken, storeCopilotToken } from "../../src/providers/copilot/login.js";
import { startOpenAIServer, type OpenAITestServer } from "../support/openai-server.js";
import { temporaryFolder } from "../support/workspace.js";
import { ensureBuilt, isolatedEnv, runCli } from "../cli/support.js";

interface GitHubServer {
  url: string;
  exchanges: string[];
  polls: number;
  /** What the exchange answers: refresh_in seconds, or a status to refuse with. */
  refreshIn: number;
  refuse?: number;
  close(): Promise<void>;
}

async function startGitHubServer(chatBaseUrl: string): Promise<GitHubServer> {
  const state: Omit<GitHubServer, "url" | "close"> = { exchanges: [], polls: 0, refreshIn: 1500 };
  const server = http.createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "Content-Type": "application/json" });
      response.end(JSON.stringify(body));
    };
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const form = new URLSearchParams(body);
      if (request.url === "/login/device/code" && request.method === "POST") {
        if (form.get("client_id") === null) return send(400, { error: "no client" });
        return send(200, { device_code: "device-1", user_code: "WDJB-MJHT", verification_uri: "https://github.com/login/device", interval: 0, expires_in: 60 });
      }
      if (request.url === "/login/oauth/access_token" && request.method === "POST") {
        state.polls++;
        if (form.get("device_code") !== "device-1" || form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:device_code")
          return send(200, { error: "bad_verification_code" });
        return send(
          200,
          state.polls < 3 ? { error: state.polls === 1 ? "authorization_pending" : "slow_down", interval: 0 } : { access_token: "gho_person", token_type: "bearer" },
        );
      }
      if (request.url === "/copilot_internal/v2/token") {
        if (request.headers.authorization !== "token gho_person") return send(401, { message: "Bad credentials" });
        if (state.refuse) return send(state.refuse, { message: "no copilot" });
        state.exchanges.push(new Date().toISOString());
        const number = state.exchanges.length;
        return send(200, { token: `copilot-${number}`, expires_at: Math.floor(Date.now() / 1000) + 1800, refresh_in: state.refreshIn, endpoints: { api: chatBaseUrl } });
      }
      send(404, { message: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as GitHubServer;
}

async function collect(provider: ModelProvider, prompt: string): Promise<string> {
  let text = "";
  for await (const event of provider.stream({ messages: [{ role: "user", content: prompt }] }) as AsyncIterable<ModelEvent>) if (event.type === "text-delta") text += event.text;
  return text;
}

let chat: OpenAITestServer;
let github: GitHubServer;
let home: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(() => ensureBuilt());
beforeEach(async () => {
  chat = await startOpenAIServer();
  github = await startGitHubServer(chat.baseURL);
  home = await temporaryFolder("clio-copilot-");
});
afterEach(async () => {
  await chat.close();
  await github.close();
  await home.remove();
});

describe("the Copilot provider", () => {
  it("is chosen from GITHUB_COPILOT_TOKEN, exchanges it, sends the Copilot token and headers, and refreshes before expiry", async () => {
    const env = { GITHUB_COPILOT_TOKEN: "gho_person", CLIO_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token` };
    const settings = resolveProviderSettings({ env });
    expect(settings).toMatchObject({ provider: "copilot", model: "gpt-4o", sources: { provider: { from: "env", detail: "GITHUB_COPILOT_TOKEN" } } });
    let clock = Date.now();
    github.refreshIn = 600;
    const provider = await createProvider(settings, { env, now: () => clock });
    chat.enqueue({ reply: "one" }, { reply: "two" }, { reply: "three" });
    expect(await collect(provider, "a")).toBe("one");
    expect(await collect(provider, "b")).toBe("two");
    clock += 601_000;
    expect(await collect(provider, "c")).toBe("three");
    expect(github.exchanges).toHaveLength(2);
    expect(chat.requests.map((request) => request.headers.authorization)).toEqual(["Bearer copilot-1", "Bearer copilot-1", "Bearer copilot-2"]);
    expect(chat.requests[0]!.headers["copilot-integration-id"]).toBe("vscode-chat");
    expect(chat.requests[0]!.headers["editor-version"]).toMatch(/^clio\//);
    expect(chat.requests[0]!.body.model).toBe("gpt-4o");
  });

  it("exchanges again and retries once when the API refuses a token early", async () => {
    const env = { CLIO_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token` };
    const provider = await createProvider(resolveProviderSettings({ env: { GITHUB_COPILOT_TOKEN: "gho_person" } }), { env });
    chat.enqueue({ status: 401, message: "token expired" }, { reply: "fine" });
    expect(await collect(provider, "a")).toBe("fine");
    expect(chat.requests.map((request) => request.headers.authorization)).toEqual(["Bearer copilot-1", "Bearer copilot-2"]);
  });

  it("says how to sign in when there is no token, and when GitHub refuses the exchange", async () => {
    const env = { CLIO_HOME: home.path, CLIO_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token` };
    await expect(createProvider(resolveProviderSettings({ flags: { provider: "copilot" } }), { env })).rejects.toMatchObject({
      code: "not_configured",
      hint: expect.stringContaining("clio login copilot"),
    });
    github.refuse = 403;
    const provider = await createProvider(resolveProviderSettings({ flags: { provider: "copilot", apiKey: "gho_person" } }), { env });
    await expect(collect(provider, "a")).rejects.toMatchObject({ code: "not_configured", message: expect.stringContaining("HTTP 403") });
  });

  it("refreshes by expiry when the exchange gives no refresh_in", async () => {
    let clock = 1_000_000;
    const tokens = new CopilotTokenSource({
      githubToken: "gho",
      version: "test",
      now: () => clock,
      fetch: async () => new Response(JSON.stringify({ token: `t${clock}`, expires_at: clock / 1000 + 120 })),
    });
    const first = await tokens.token();
    clock += 59_000;
    expect(await tokens.token()).toBe(first);
    clock += 2_000;
    expect((await tokens.token()).token).toBe("t1061000");
    expect(tokens.exchanges).toBe(2);
  });
});

describe("clio login copilot", () => {
  it("runs the device flow (pending, slow down, token) and stores the token with 0600", async () => {
    const codes: string[] = [];
    const token = await deviceLogin({ githubUrl: github.url, sleep: async () => {}, onCode: (code) => codes.push(`${code.verificationUri} ${code.userCode}`) });
    expect(token).toBe("gho_person");
    expect(codes).toEqual(["https://github.com/login/device WDJB-MJHT"]);
    const file = path.join(home.path, ".clio", "copilot.json");
    await storeCopilotToken(file, token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readCopilotToken(file)).toBe("gho_person");
  });

  it("signs in through the CLI, and -p then talks to Copilot with the stored token", async () => {
    const env = isolatedEnv(home.path, { CLIO_GITHUB_URL: github.url, CLIO_COPILOT_TOKEN_URL: `${github.url}/copilot_internal/v2/token` });
    const login = await runCli(["login", "copilot"], { cwd: home.path, env });
    expect(login.stderr).toContain("enter the code WDJB-MJHT");
    expect(login.code).toBe(0);
    const file = path.join(home.path, ".clio", "copilot.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ githubToken: "gho_person" });
    chat.enqueue({ reply: "Hello from Copilot." });
    const asked = await runCli(["-p", "hi", "--provider", "copilot"], { cwd: home.path, env });
    expect(asked.stdout).toBe("Hello from Copilot.\n");
    expect(asked.code).toBe(0);
    expect(chat.requests[0]!.headers.authorization).toBe("Bearer copilot-2");
  });
});
