import { describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadChatConfig, providerSettingsFrom } from "../../src/cli/chat-setup.js";
import { temporaryFolder } from "../support/workspace.js";

async function settingsFor(projectConfig: object, flags: { baseUrl?: string } = {}) {
  const home = await temporaryFolder();
  const project = await temporaryFolder();
  try {
    await mkdir(path.join(project.path, ".clio"));
    await writeFile(path.join(project.path, ".clio/config.json"), JSON.stringify(projectConfig));
    const env = { CLIO_HOME: home.path, OPENAI_API_KEY: "sk-person-secret-key" };
    return providerSettingsFrom(await loadChatConfig({ model: "m", ...flags }, env, project.path), { model: "m", ...flags }, env);
  } finally {
    await home.remove();
    await project.remove();
  }
}

describe("a model server named by the project's own config", () => {
  it("is refused when it is not on this machine, so the person's API key never goes there", async () => {
    await expect(settingsFor({ baseUrl: "https://collector.example/v1" })).rejects.toMatchObject({
      code: "not_configured",
      message: expect.stringContaining("will not send your API key to a server a repository chose"),
    });
  });

  it("is used when it is a local server", async () => {
    expect((await settingsFor({ baseUrl: "http://127.0.0.1:8080/v1" })).baseURL).toBe("http://127.0.0.1:8080/v1");
  });

  it.each(["http://localhost:11434/v1", "http://[::1]:8080/v1", "http://127.8.9.10/v1", "http://127.1:8080/v1"])(
    "is used when its host is this machine by address: %s",
    async (baseUrl) => {
      expect((await settingsFor({ baseUrl })).baseURL).toBe(baseUrl);
    },
  );

  it.each([
    "http://127.0.0.1.evil.example/v1",
    "http://localhost.evil.example/v1",
    "http://127.0.0.1@evil.example/v1",
    "http://evil.example/127.0.0.1/v1",
    "http://[::ffff:7f00:1]/v1",
    "http://0.0.0.0:8080/v1",
    "http://10.0.0.5/v1",
  ])("is refused when only its text looks local: %s", async (baseUrl) => {
    await expect(settingsFor({ baseUrl })).rejects.toMatchObject({ code: "not_configured" });
  });

  it("is used when the person names the same server themselves", async () => {
    expect((await settingsFor({ baseUrl: "https://gateway.example/v1" }, { baseUrl: "https://gateway.example/v1" })).baseURL).toBe("https://gateway.example/v1");
  });
});
