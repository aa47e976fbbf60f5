/**
 * Commands that run to their end when handed over (`submitAtOnce`): a read whose handler gives its
 * output at once finishes in the call, with the same result and events as through `submit`; any
 * step that has to wait (the protocol's setup, a question, a cut output, a handler's promise) makes
 * it a promise as before.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProtocolError } from "../../protocols/contract/errors.js";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";
import { ProtocolManager, type ManagerEvent } from "../../src/manager/manager.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import type { CommandResult } from "../../src/manager/result.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

/** Echoes its text at once; `throw` makes it throw in the call, `later` gives a promise, `long` an output past the limit. */
let calls = 0;
const echoProtocol = defineProtocol<{ ready: boolean }>({
  name: "ECHO",
  summary: "Echoes text (test protocol).",
  setup: () => ({ ready: true }),
  actions: {
    say: defineAction<{ text: string; how: string | undefined }, { ready: boolean }>({
      summary: "Echoes text.",
      permission: "read",
      parameters: { text: parameter.text("what to echo"), how: parameter.optionalText("throw, later or long") },
      describe: (args) => `Echoing ${args.text}`,
      handler(args) {
        calls++;
        if (args.how === "throw") throw new ProtocolError("invalid_argument", `Cannot echo ${args.text}.`, "Echo something else.");
        if (args.how === "later") return Promise.resolve({ output: `later ${args.text}` });
        return { output: args.how === "long" ? args.text.repeat(100) : args.text, data: { text: args.text } };
      },
    }),
  },
});

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  calls = 0;
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

async function makeManager(deny: string[] = []) {
  const events: ManagerEvent[] = [];
  const manager = new ProtocolManager({
    registry: new ProtocolRegistry([echoProtocol]),
    environment: { workspace: await Workspace.open(folder.path), config: {}, env: {}, now: () => 0, userAgent: "clio-test" },
    permissions: new PermissionPolicy("yolo", { allow: [], deny }),
    outputLimit: 50,
    onEvent: (event) => events.push(event),
  });
  return { manager, events };
}

const submission = (text: string) => scriptSubmissions(text).submissions[0]!;
/** A result without what differs from run to run. */
const comparable = ({ id: _id, durationMs: _durationMs, ...rest }: CommandResult) => rest;

describe("commands run at once", () => {
  it("finish a read in the call once the protocol is set up, with the result and events submit gives", async () => {
    const { manager, events } = await makeManager();
    const first = manager.submitAtOnce(submission('[ECHO:action=say:text="a"]'));
    // The protocol's state is set up first: that one waits.
    expect(first).toBeInstanceOf(Promise);
    const awaited = await manager.submit(submission('[ECHO:action=say:text="b"]'));
    await first;
    events.length = 0;
    const atOnce = manager.submitAtOnce(submission('[ECHO:action=say:text="b"]'));
    expect(atOnce).not.toBeInstanceOf(Promise);
    expect(comparable(atOnce as CommandResult)).toEqual(comparable(awaited));
    expect(events.map((event) => event.type)).toEqual(["command-started", "command-finished"]);
    expect(events[1]).toMatchObject({ type: "command-finished", result: atOnce });
  });

  it("give a handler's error at once as an error result, and wait for a promise or a cut output", async () => {
    const { manager } = await makeManager();
    await manager.submit(submission('[ECHO:action=say:text="warm"]'));
    const thrown = manager.submitAtOnce(submission('[ECHO:action=say:text="x":how="throw"]'));
    expect(thrown).toMatchObject({ ok: false, error: { code: "invalid_argument", message: "Cannot echo x." }, args: { text: "x", how: "throw" } });
    const later = manager.submitAtOnce(submission('[ECHO:action=say:text="y":how="later"]'));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toMatchObject({ ok: true, output: "later y" });
    const long = manager.submitAtOnce(submission('[ECHO:action=say:text="z":how="long"]'));
    expect(long).toBeInstanceOf(Promise);
    expect(await long).toMatchObject({ ok: true, truncated: true });
  });

  it("refuse at once what a deny rule refuses, and run nothing", async () => {
    const { manager } = await makeManager(["ECHO:say"]);
    const refused = manager.submitAtOnce(submission('[ECHO:action=say:text="q"]'));
    expect(refused).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(calls).toBe(0);
  });
});
