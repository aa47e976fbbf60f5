/** Per-preset sampling defaults, and config, environment and flags overriding them, as requests carry them. */
import { describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { testModelName } from "../support/openai-server.js";
import { freshCliFixture, isolatedEnv, runCli } from "./support.js";

const fixture = freshCliFixture();

/** Runs one prompt and returns the sampling fields of the request the server received. */
async function sentSampling(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { server, home, workspace } = fixture;
  server.enqueue({ reply: "Done." });
  const result = await runCli(["-p", "hi", "--model", testModelName, "--api-key", "x", "--base-url", server.baseURL, ...args], {
    cwd: workspace.path,
    env: isolatedEnv(home.path, env),
  });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const body = server.requests.at(-1)!.body;
  return { temperature: body.temperature, top_p: body.top_p, max_tokens: body.max_tokens };
}

describe("sampling defaults", () => {
  it("a local preset (and any other OpenAI-compatible server) sends the small-model defaults", async () => {
    expect(await sentSampling([])).toEqual({ temperature: 0.2, top_p: 0.95, max_tokens: 4096 });
    expect(await sentSampling(["--provider", "ollama"])).toEqual({ temperature: 0.2, top_p: 0.95, max_tokens: 4096 });
    expect(await sentSampling(["--provider", "vllm"])).toEqual({ temperature: 0.2, top_p: 0.95, max_tokens: 8192 });
  });

  it("a hosted preset leaves them to the server", async () => {
    expect(await sentSampling(["--provider", "openai"])).toEqual({ temperature: undefined, top_p: undefined, max_tokens: undefined });
  });

  it("config overrides the preset, the environment overrides config, a flag overrides both; each setting on its own", async () => {
    await mkdir(path.join(fixture.home.path, ".clio"), { recursive: true });
    await writeFile(path.join(fixture.home.path, ".clio", "config.json"), JSON.stringify({ temperature: 0.5, topP: 0.5 }));
    expect(await sentSampling([])).toEqual({ temperature: 0.5, top_p: 0.5, max_tokens: 4096 });
    expect(await sentSampling([], { CLIO_TEMPERATURE: "0.7" })).toEqual({ temperature: 0.7, top_p: 0.5, max_tokens: 4096 });
    expect(await sentSampling(["--temperature", "1", "--max-tokens", "100"], { CLIO_TEMPERATURE: "0.7" })).toEqual({ temperature: 1, top_p: 0.5, max_tokens: 100 });
  });

  it("clio config shows each value in force and where it came from", async () => {
    const { home, workspace, server } = fixture;
    const result = await runCli(["config", "--provider", "ollama", "--base-url", server.baseURL, "--top-p", "0.8"], { cwd: workspace.path, env: isolatedEnv(home.path) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/temperature = 0\.2\s+\(default \(ollama preset\)\)/);
    expect(result.stdout).toMatch(/topP = 0\.8\s+\(flag/);
    expect(result.stdout).toMatch(/maxTokens = 4096\s+\(default \(ollama preset\)\)/);
  });
});
