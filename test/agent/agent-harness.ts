/**
 * An agent wired for end-to-end tests: the real openai client against the OpenAI-compatible
 * test server on 127.0.0.1, the real protocols, a real temporary workspace and session folder.
 */
import { writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { AgentEvent } from "../../src/agent/agent.js";
import { Conversation } from "../../src/agent/conversation.js";
import type { ManagerEvent } from "../../src/manager/manager.js";
import type { PermissionAsker, PermissionMode } from "../../src/manager/permissions.js";
import { OpenAICompatibleProvider } from "../../src/providers/index.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { SessionStore } from "../../src/sessions/index.js";
import { startOpenAIServer, testModelName, type OpenAITestServer } from "../support/openai-server.js";
import { temporaryFolder } from "../support/workspace.js";

export interface Harness {
  server: OpenAITestServer;
  workspace: string;
  conversation: Conversation;
  runtime: Runtime;
  store: SessionStore;
  agentEvents: AgentEvent[];
  managerEvents: ManagerEvent[];
  sleeps: number[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  api?: "chat" | "completions";
  mode?: PermissionMode;
  asker?: PermissionAsker;
  maxTurns?: number;
  /** The model's context window in tokens (older turns are summarised near it). */
  contextWindow?: number;
  files?: Record<string, string>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const server = await startOpenAIServer();
  const folder = await temporaryFolder("clio-agent-");
  const sessions = await temporaryFolder("clio-sessions-");
  for (const [relative, text] of Object.entries(options.files ?? {})) {
    await mkdir(path.dirname(path.join(folder.path, relative)), { recursive: true });
    await writeFile(path.join(folder.path, relative), text);
  }
  const agentEvents: AgentEvent[] = [];
  const managerEvents: ManagerEvent[] = [];
  const sleeps: number[] = [];
  const runtime = await createRuntime({
    workspace: folder.path,
    permissionMode: options.mode ?? "yolo",
    ...(options.asker ? { asker: options.asker } : {}),
    env: { PATH: process.env.PATH ?? "", HOME: folder.path },
    onEvent: (event) => managerEvents.push(event),
  });
  const provider = new OpenAICompatibleProvider({
    name: "test",
    api: options.api ?? "chat",
    baseURL: server.baseURL,
    model: testModelName,
    apiKey: "test-key",
    sleep: async (milliseconds) => {
      sleeps.push(milliseconds);
    },
    random: () => 0.5,
  });
  const store = new SessionStore(sessions.path);
  const conversation = new Conversation({
    provider,
    runtime,
    store,
    maxTurns: options.maxTurns ?? 10,
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    onEvent: (event) => agentEvents.push(event),
  });
  return {
    server,
    workspace: folder.path,
    conversation,
    runtime,
    store,
    agentEvents,
    managerEvents,
    sleeps,
    async close() {
      await conversation.close();
      await runtime.manager.dispose();
      await server.close();
      await folder.remove();
      await sessions.remove();
    },
  };
}

/** The text of the last user message the server received in request `index`. */
export function lastUserMessage(harness: Harness, index: number): string {
  const body = harness.server.requests[index]?.body;
  if (!body) throw new Error(`no request ${index}`);
  if (body.prompt !== undefined) return String(body.prompt);
  const messages = body.messages as { role: string; content: string }[];
  return [...messages].reverse().find((message) => message.role === "user")?.content ?? "";
}
