/**
 * Each layer owns its error codes over one base: errors are recognised by their marker, never by
 * `name`, and the manager (the one catch boundary) tags an error with the action that raised it.
 */
import { describe, expect, it } from "vitest";
import { ClioError } from "../../grammar/errors.js";
import { ProtocolError } from "../../protocols/contract/errors.js";
import { defineAction, defineProtocol } from "../../protocols/contract/protocol.js";
import { ApplicationError } from "../../src/errors.js";
import { toErrorData } from "../../src/manager/action-results.js";
import { ProtocolManager } from "../../src/manager/manager.js";
import { PermissionPolicy } from "../../src/manager/permissions.js";
import { StreamCutError } from "../../src/providers/failures.js";
import { ProtocolRegistry } from "../../src/registry.js";
import { scriptSubmissions } from "../../src/replay/replay.js";
import { ToolError } from "../../tools/errors.js";
import { Workspace } from "../../tools/workspace.js";
import { temporaryFolder } from "../support/workspace.js";

describe("error classes", () => {
  it("every layer's error is a ClioError carrying code, message and hint", () => {
    const errors = [
      new ToolError("not_found", "No file a.txt.", "Check the path."),
      new ProtocolError("missing_parameter", "GIT.add needs files.", "Add files=..."),
      new ApplicationError("invalid_config", "Bad key.", "Remove it."),
    ];
    for (const error of errors) {
      expect(ClioError.isInstance(error)).toBe(true);
      expect(error).toBeInstanceOf(Error);
      expect(error.toData()).toEqual({ code: error.code, message: error.message, hint: error.hint });
    }
    expect(new ToolError("timeout", "Too slow.").toData()).toEqual({ code: "timeout", message: "Too slow." });
  });

  it("tells the layers apart by marker: a tool error is not an application error", () => {
    const tool = new ToolError("not_found", "missing");
    expect(ToolError.isInstance(tool)).toBe(true);
    expect(ApplicationError.isInstance(tool)).toBe(false);
    expect(ProtocolError.isInstance(tool)).toBe(false);
    expect(ToolError.isInstance(new ApplicationError("provider_error", "down"))).toBe(false);
  });

  it("recognises an error from another copy of the module by its marker, and ignores a look-alike name", () => {
    const fromAnotherCopy = Object.assign(new Error("copied"), { [Symbol.for("clio.error")]: true, code: "not_found" });
    expect(ClioError.isInstance(fromAnotherCopy)).toBe(true);
    const lookAlike = Object.assign(new Error("impostor"), { name: "ClioError", code: "not_found" });
    expect(ClioError.isInstance(lookAlike)).toBe(false);
    expect(ClioError.isInstance(undefined)).toBe(false);
    expect(ClioError.isInstance("not_found")).toBe(false);
  });

  it("recognises a cut stream by its own marker, not by its name", () => {
    const server = { name: "local", baseURL: "http://127.0.0.1:1/v1", model: "m", api: "chat" as const };
    const cut = new StreamCutError(server, 12, "socket hang up");
    expect(StreamCutError.isInstance(cut)).toBe(true);
    expect(ApplicationError.isInstance(cut)).toBe(true);
    const renamed = Object.assign(new ApplicationError("provider_error", "cut"), { name: "StreamCutError" });
    expect(StreamCutError.isInstance(renamed)).toBe(false);
  });

  it("keeps the cause", () => {
    const cause = new Error("EACCES");
    expect(new ToolError("permission_denied", "Cannot read a.txt.", undefined, { cause }).cause).toBe(cause);
  });

  it("turns anything else into an internal error", () => {
    expect(toErrorData(new Error("boom"))).toMatchObject({ code: "internal_error", message: "The command failed unexpectedly: boom" });
  });
});

describe("the catch boundary", () => {
  it("tags a thrown error with the protocol action that raised it, keeping a caller already set", async () => {
    const thrown: ClioError[] = [];
    const probe = defineProtocol({
      name: "PROBE",
      summary: "Fails on purpose (test protocol).",
      actions: {
        fail: defineAction<Record<string, never>>({
          summary: "Throws a tool error.",
          permission: "read",
          parameters: {},
          describe: () => "Failing",
          async handler() {
            const error = new ToolError("not_found", "Nothing here.", "Look elsewhere.");
            thrown.push(error);
            throw error;
          },
        }),
        tagged: defineAction<Record<string, never>>({
          summary: "Throws an error that names its caller.",
          permission: "read",
          parameters: {},
          describe: () => "Failing",
          async handler() {
            const error = new ToolError("locked", "Busy.", undefined, { caller: "memory.store" });
            thrown.push(error);
            throw error;
          },
        }),
      },
    });
    const folder = await temporaryFolder();
    try {
      const manager = new ProtocolManager({
        registry: new ProtocolRegistry([probe]),
        environment: { workspace: await Workspace.open(folder.path), config: {}, env: {}, now: () => 0, userAgent: "clio-test" },
        permissions: new PermissionPolicy("yolo", { allow: [], deny: [] }),
      });
      const results = await manager.runAll(scriptSubmissions("[PROBE:action=fail] [PROBE:action=tagged]").submissions);
      expect(results.map((result) => result.error?.code)).toEqual(["not_found", "locked"]);
      expect(results[0]?.error).toEqual({ code: "not_found", message: "Nothing here.", hint: "Look elsewhere." });
      expect(thrown.map((error) => error.caller)).toEqual(["PROBE.fail", "memory.store"]);
    } finally {
      await folder.remove();
    }
  });
});
