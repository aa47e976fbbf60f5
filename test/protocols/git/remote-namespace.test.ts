/**
 * GIT refuses remotes on link-local, metadata and private addresses, by literal, by name and
 * by redirect. Runs in a loopback-only network namespace so that a broken refusal still
 * reaches nothing (see test/support/loopback-namespace.ts).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runInLoopbackNamespace } from "../../support/loopback-namespace.js";

interface Probe {
  found: Record<string, { code?: string; message?: string }>;
  requests: string[];
}

describe("GIT's address guard, in a loopback-only namespace", () => {
  it("refuses every remote that is not public before connecting, including after a redirect", async () => {
    const { found, requests } = await runInLoopbackNamespace<Probe>(path.join(import.meta.dirname, "namespace-probe.ts"));
    for (const name of ["metadata", "private", "linklocal6", "named", "redirect"]) {
      expect({ name, code: found[name]?.code }).toEqual({ name, code: "blocked_address" });
    }
    expect(found.metadata?.message).toContain("link-local (including cloud metadata services)");
    expect(found.named?.message).toContain("metadata.test resolves to 169.254.169.254");
    expect(found.private?.message).toContain("a private network");
    expect(requests).toEqual(["GET /project.git/info/refs?service=git-upload-pack"]);
  });
});
