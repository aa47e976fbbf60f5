/**
 * An unknown protocol, action or parameter name gets the whole corrected command as its hint
 * when one correction is plain (a typo, or another agent's name for the thing); the corrected
 * command then passes the checks. When no one correction is plain, the hint lists what exists.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { checkCommand } from "../../src/manager/check.js";
import { nearestWord } from "../../src/nearest-word.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";

let registry: ProtocolRegistry;
beforeAll(async () => {
  registry = await loadBuiltinProtocols();
});

function check(text: string) {
  const [command] = parse(text).commands;
  expect(command).toBeDefined();
  return checkCommand(command!, registry);
}

function failed(text: string) {
  const result = check(text);
  if (result.ok) throw new Error(`${text} passed the checks`);
  return result.error;
}

describe("the corrected command in the hint of an unknown name", () => {
  it.each([
    ['[FILEOP:action=read:path="src/a.ts"]', "unknown_protocol", '[FILE_OP:action=read:path="src/a.ts"]'],
    ['[FILE_OPS:action=read:path="src/a.ts"]', "unknown_protocol", '[FILE_OP:action=read:path="src/a.ts"]'],
    ["[GTI:action=status]", "unknown_protocol", "[GIT:action=status]"],
    ['[FILE_OP:action=read_file:path="src/a.ts"]', "unknown_action", '[FILE_OP:action=read:path="src/a.ts"]'],
    ['[FILE_OP:action=read_file:file_path="src/a.ts"]', "unknown_action", '[FILE_OP:action=read:path="src/a.ts"]'],
    ['[FILE_OP:action=search_files:path="src":regex="TODO"]', "unknown_action", '[FILE_OP:action=search:path="src":content="TODO":pattern="*"]'],
    ['[EXEC:action=execute_command:command="npm test"]', "unknown_action", '[EXEC:action=run:command="npm test"]'],
    ['[FILE_OP:action=raed:path="src/a.ts"]', "unknown_action", '[FILE_OP:action=read:path="src/a.ts"]'],
    ['[FILE_OP:action=read:file_path="src/a.ts"]', "unknown_parameter", '[FILE_OP:action=read:path="src/a.ts"]'],
    ['[FILE_OP:action=read:paht="src/a.ts"]', "unknown_parameter", '[FILE_OP:action=read:path="src/a.ts"]'],
  ])("%s: %s, and the hint runs as meant", (text, code, hint) => {
    expect(failed(text)).toMatchObject({ code, hint });
    expect(check(hint).ok).toBe(true);
  });

  it("keeps listing what exists when no one correction is plain", () => {
    expect(failed('[FOO:action=read:path="a"]').hint).toContain("Write one of EXEC, FILE_OP");
    // One letter from GIT, but GIT has no action of that name (nor any named here): no typo of GIT's.
    expect(failed('[GET:url="https://example.com"]').hint).toContain("Write one of EXEC, FILE_OP");
    expect(failed('[GET:action=get:url="https://example.com"]').hint).toContain("Write one of EXEC, FILE_OP");
    expect(failed("[GIT:action=frobnicate]").hint).toContain("Write action= followed by one of: status");
    expect(failed('[FILE_OP:action=read:colour="red"]').hint).toBe("FILE_OP.read takes: path, offset, limit.");
    // The parameter a typo means is written already: renaming it would make a duplicate key.
    expect(failed('[FILE_OP:action=read:path="a":paht="b"]').hint).toBe("FILE_OP.read takes: path, offset, limit.");
    expect(failed('[FILE_OP:action=read:colour="red"]').message).toContain("takes: path, offset, limit");
  });
});

describe("nearestWord", () => {
  it("counts a swap of neighbours as one edit and ignores case, `_` and `-`", () => {
    expect(nearestWord("raed", ["read", "write"], 1)).toBe("read");
    expect(nearestWord("FILEOP", ["FILE_OP", "GIT"], 2)).toBe("FILE_OP");
    expect(nearestWord("max-tokens", ["maxTokens", "model"], 0)).toBe("maxTokens");
  });

  it("gives nothing for a tie or a word too far from every known one", () => {
    expect(nearestWord("cat", ["car", "bat"], 1)).toBeUndefined();
    expect(nearestWord("frobnicate", ["read", "write"], 2)).toBeUndefined();
  });
});
