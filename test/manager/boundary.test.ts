/**
 * The manager is the one catch boundary: whatever a protocol does wrong — a handler that throws
 * before its first await, returns nothing, a describe or permission function that throws, a
 * setup that fails, an asker that breaks — becomes an error result, never a rejection.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "../../grammar/index.js";
import { ProtocolManager, type ManagerEvent } from "../../src/manager/manager.js";
import { PermissionPolicy, type PermissionAsker, type PermissionMode } from "../../src/manager/permissions.js";
import { defineAction, defineProtocol, parameter, type ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

const oddProtocol = defineProtocol<{ runs: number }>({
  name: "ODD",
  summary: "Misbehaves on purpose (test protocol).",
  setup: () => ({ runs: 0 }),
  actions: {
    sync: defineAction({
      summary: "Throws before any await.",
      permission: "read",
      parameters: {},
      describe: () => "Throwing at once",
      handler: (() => {
        throw new Error("thrown synchronously");
      }) as never,
    }),
    nothing: defineAction({
      summary: "Returns undefined.",
      permission: "read",
      parameters: {},
      describe: () => "Returning nothing",
      handler: (async () => undefined) as never,
    }),
    number: defineAction({
      summary: "Returns an output that is not text.",
      permission: "read",
      parameters: {},
      describe: () => "Returning a number",
      handler: (async () => ({ output: 42 })) as never,
    }),
    describeThrows: defineAction<{ path: string }>({
      summary: "Its describe throws.",
      permission: "read",
      parameters: { path: parameter.text("a path") },
      describe: () => {
        throw new Error("describe broke");
      },
      handler: async (args) => ({ output: `ok ${args.path}` }),
    }),
    classThrows: defineAction({
      summary: "Its permission function throws.",
      permission: () => {
        throw new Error("permission broke");
      },
      parameters: {},
      describe: () => "Classifying",
      handler: async () => ({ output: "ran" }),
    }),
    write: defineAction<{ path: string }>({
      summary: "A write.",
      permission: "write",
      parameters: { path: parameter.text("a path") },
      describe: (args) => `Writing ${args.path}`,
      handler: async (args) => ({ output: `wrote ${args.path}` }),
    }),
    big: defineAction<{ size: number | undefined }>({
      summary: "A long output.",
      permission: "read",
      parameters: { size: parameter.integer("characters", { min: 1 }) },
      describe: () => "Making a long output",
      handler: async (args) => ({ output: "y".repeat(args.size ?? 100) }),
    }),
  },
});

async function makeManager(options: { protocol?: ProtocolDefinition; mode?: PermissionMode; asker?: PermissionAsker; outputLimit?: number } = {}) {
  const events: ManagerEvent[] = [];
  const workspace = await Workspace.open(folder.path);
  const manager = new ProtocolManager({
    registry: new ProtocolRegistry([options.protocol ?? oddProtocol]),
    environment: { workspace, config: {}, env: {}, now: () => Date.UTC(2026, 10, 22), userAgent: "clio-test" },
    permissions: new PermissionPolicy(options.mode ?? "yolo", {}, options.asker),
    ...(options.outputLimit ? { outputLimit: options.outputLimit } : {}),
    onEvent: (event) => events.push(event),
  });
  return { manager, events };
}

function submit(manager: ProtocolManager, text: string, signal?: AbortSignal) {
  return manager.submit({ command: parse(text).commands[0]! }, signal);
}

describe("the catch boundary", () => {
  it("turns a handler that throws before its first await into an error result", async () => {
    const { manager } = await makeManager();
    const result = await submit(manager, "[ODD:action=sync]");
    expect(result).toMatchObject({ ok: false, error: { code: "internal_error" } });
    expect(result.error!.message).toContain("thrown synchronously");
  });

  it("turns a handler that returns no object, or an output that is not text, into an error result", async () => {
    const { manager } = await makeManager();
    for (const text of ["[ODD:action=nothing]", "[ODD:action=number]"]) {
      const result = await submit(manager, text);
      expect(result.ok).toBe(false);
      expect(result.error!.code).toBe("internal_error");
      expect(result.error!.message).toContain("ODD.");
    }
  });

  it("runs the command under a plain description when describe throws", async () => {
    const { manager, events } = await makeManager();
    const result = await submit(manager, '[ODD:action=describeThrows:path="a.txt"]');
    expect(result).toMatchObject({ ok: true, output: "ok a.txt", description: "ODD.describeThrows" });
    expect(events[0]).toMatchObject({ type: "command-started", description: "ODD.describeThrows" });
  });

  it("turns a permission function that throws into an error result, and the command does not run", async () => {
    const { manager, events } = await makeManager();
    const result = await submit(manager, "[ODD:action=classThrows]");
    expect(result).toMatchObject({ ok: false, error: { code: "internal_error" } });
    expect(events.map((event) => event.type)).toEqual(["command-finished"]);
  });

  it("turns a setup that rejects into an error result, and tries setup again for the next command", async () => {
    let attempts = 0;
    const flaky = defineProtocol<{ attempt: number }>({
      name: "FLAKY",
      summary: "Its setup fails the first time (test protocol).",
      setup: async () => {
        attempts++;
        if (attempts === 1) throw new Error("index folder is locked");
        return { attempt: attempts };
      },
      actions: {
        get: defineAction({
          summary: "Says which setup it got.",
          permission: "read",
          parameters: {},
          describe: () => "Getting",
          handler: async (_args, { state }) => ({ output: `attempt ${state.attempt}` }),
        }),
      },
    });
    const { manager } = await makeManager({ protocol: flaky });
    const first = await submit(manager, "[FLAKY:action=get]");
    expect(first.error!.message).toContain("index folder is locked");
    const second = await submit(manager, "[FLAKY:action=get]");
    expect(second).toMatchObject({ ok: true, output: "attempt 2" });
  });

  it("turns an asker that fails into a refusal, never a rejected submit", async () => {
    const { manager } = await makeManager({
      mode: "ask",
      asker: async () => {
        throw new Error("the terminal went away");
      },
    });
    const result = await submit(manager, '[ODD:action=write:path="a.txt"]');
    expect(result).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(result.error!.message).toContain("the terminal went away");
  });

  it("asks nothing for a command that was cancelled before its turn came", async () => {
    const asked: string[] = [];
    const { manager } = await makeManager({ mode: "ask", asker: async (request) => (asked.push(request.description), "yes") });
    const controller = new AbortController();
    controller.abort();
    const result = await submit(manager, '[ODD:action=write:path="a.txt"]', controller.signal);
    expect(result.error!.code).toBe("cancelled");
    expect(asked).toEqual([]);
  });
});

describe("cut outputs", () => {
  it("still cuts the output, with a note that says how to see less, when .clio/outputs cannot be written", async () => {
    await writeFile(path.join(folder.path, ".clio"), "a file where the folder would go");
    const { manager } = await makeManager({ outputLimit: 50 });
    const result = await submit(manager, "[ODD:action=big:size=500]");
    expect(result.ok).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.fullOutputPath).toBeUndefined();
    expect(result.output.startsWith("y".repeat(50))).toBe(true);
    expect(result.output).toContain("output cut at 50 of 500 characters");
    expect(result.output).toContain("ask for a smaller part");
  });

  it("never keeps a cut output through a .clio that leads outside the workspace", async () => {
    const outside = await temporaryFolder("clio-outside-");
    try {
      await symlink(outside.path, path.join(folder.path, ".clio"));
      const { manager } = await makeManager({ outputLimit: 50 });
      const result = await submit(manager, "[ODD:action=big:size=500]");
      expect(result.truncated).toBe(true);
      expect(result.fullOutputPath).toBeUndefined();
      expect(await readdir(outside.path)).toEqual([]);
    } finally {
      await outside.remove();
    }
  });

  it("never cuts an output between the two halves of an emoji", async () => {
    const emoji = defineProtocol({
      name: "EMOJI",
      summary: "Returns emoji (test protocol).",
      actions: {
        get: defineAction({ summary: "Emoji.", permission: "read", parameters: {}, describe: () => "Emoji", handler: async () => ({ output: "a😀😀😀" }) }),
      },
    });
    const { manager } = await makeManager({ protocol: emoji, outputLimit: 2 });
    const result = await submit(manager, "[EMOJI:action=get]");
    expect(result.output.startsWith("a\n[output cut")).toBe(true);
    expect(result.output).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("keeps two cut outputs of the same moment in two files", async () => {
    await mkdir(path.join(folder.path, ".clio"));
    const { manager } = await makeManager({ outputLimit: 10 });
    const [first, second] = await manager.runAll(parse("[ODD:action=big:size=40] [ODD:action=big:size=41]").commands.map((command) => ({ command })));
    expect(first!.fullOutputPath).not.toBe(second!.fullOutputPath);
  });
});
