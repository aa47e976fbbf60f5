/**
 * `prepareFor`: a protocol's read-only `prepare` begins as soon as a script names it, once per
 * manager, before the script's first command is parsed; never for a protocol the text does not
 * name or a deny rule refuses outright; a failing `prepare` is the command's to meet again.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defineAction, defineProtocol, parameter } from "../../protocols/contract/protocol.js";
import { ProtocolManager } from "../../src/manager/manager.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

/** `prepare` calls in the test, whatever the state. */
let prepareCalls = 0;

interface WarmState {
  prepared: number;
  failing: boolean;
}

const warmProtocol = (failing = false) =>
  defineProtocol<WarmState>({
    name: "WARM",
    summary: "Says how often it was prepared (test protocol).",
    setup: () => ({ prepared: 0, failing }),
    prepare(state) {
      prepareCalls++;
      state.prepared++;
      if (state.failing) throw new Error("the warm-up failed");
    },
    actions: {
      count: defineAction<{ note: string | undefined }, WarmState>({
        summary: "Says how often the protocol was prepared.",
        permission: "read",
        parameters: { note: parameter.optionalText("anything") },
        describe: () => "Counting",
        handler: (_args, { state }) => ({ output: `prepared ${state.prepared}` }),
      }),
    },
  });

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
beforeEach(async () => {
  prepareCalls = 0;
  folder = await temporaryFolder();
});
afterEach(async () => {
  await folder.remove();
});

async function makeManager(protocol = warmProtocol(), deny: string[] = []) {
  return new ProtocolManager({
    registry: new ProtocolRegistry([protocol]),
    environment: { workspace: await Workspace.open(folder.path), config: {}, env: {}, now: () => 0, userAgent: "clio-test" },
    permissions: new PermissionPolicy("yolo", { allow: [], deny }),
  });
}

const countOf = async (manager: ProtocolManager) => (await manager.runAll(scriptSubmissions("[WARM:action=count]").submissions))[0];

describe("prepareFor", () => {
  it("prepares a protocol the text names, once, before its first command runs", async () => {
    const manager = await makeManager();
    await manager.prepareFor("[WARM:action=count]");
    await manager.prepareFor("[WARM:action=count] again");
    expect(await countOf(manager)).toMatchObject({ ok: true, output: "prepared 1" });
  });

  it("leaves alone a protocol the text does not name, and one a deny rule refuses outright", async () => {
    const unnamed = await makeManager();
    await unnamed.prepareFor("[FILE_OP:action=read:path=a.txt]");
    expect(await countOf(unnamed)).toMatchObject({ ok: true, output: "prepared 0" });
    const refused = await makeManager(warmProtocol(), ["WARM"]);
    await refused.prepareFor("[WARM:action=count]");
    expect(prepareCalls).toBe(0);
    expect(await countOf(refused)).toMatchObject({ ok: false, error: { code: "permission_denied" } });
  });

  it("resolves when the preparation fails, and the command still runs", async () => {
    const manager = await makeManager(warmProtocol(true));
    await expect(manager.prepareFor("[WARM:action=count]")).resolves.toBeUndefined();
    expect(await countOf(manager)).toMatchObject({ ok: true, output: "prepared 1" });
  });
});
