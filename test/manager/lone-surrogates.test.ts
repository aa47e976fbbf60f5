/**
 * Lone surrogates in a quoted or heredoc value are an error naming the parameter: written
 * to a file they would silently become U+FFFD.
 */
import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProtocolManager } from "../../src/manager/manager.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import { loadBuiltinProtocols } from "../../src/registry.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let manager: ProtocolManager;
beforeEach(async () => {
  folder = await temporaryFolder();
  manager = new ProtocolManager({
    registry: await loadBuiltinProtocols(),
    environment: { workspace: await Workspace.open(folder.path), config: {}, env: {}, now: Date.now, userAgent: "clio-test" },
    permissions: new PermissionPolicy("yolo"),
  });
});
afterEach(async () => {
  await manager.dispose();
  await folder.remove();
});

const run = async (script: string) => (await manager.runAll(scriptSubmissions(script).submissions))[0]!;

describe("lone surrogates in a value", () => {
  it.each([
    ["an escaped high half", '[FILE_OP:action=write:path="a.txt":content="half \\uD83D here"]'],
    ["an escaped low half", '[FILE_OP:action=write:path="a.txt":content="\\uDE00 alone"]'],
    ["a raw half in a heredoc", '[FILE_OP:action=write:path="a.txt":content<<EOF\nraw \uD800 half\nEOF\n]'],
  ])("%s is an error naming the parameter, and nothing is written", async (_name, script) => {
    const result = await run(script);
    expect(result.ok).toBe(false);
    expect(result.error!.message).toMatch(/^FILE_OP\.write: content is not text with whole characters only \(character \d+ is \\uD[89A-F][0-9A-F]{2}, half of a surrogate pair/);
    expect(existsSync(`${folder.path}/a.txt`)).toBe(false);
  });

  it("a whole pair is fine", async () => {
    expect((await run('[FILE_OP:action=write:path="a.txt":content="pair \\uD83D\\uDE00 ok"]')).ok).toBe(true);
  });
});
