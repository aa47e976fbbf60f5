/** Module state kept once per process although dist/clio.cjs and the ES-module chunks each carry a copy of the module (src/process-state.ts). */
import { createRequire } from "node:module";
import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { signalsClaimed, type watchInterrupts } from "../../src/cli/interrupts.js";
import { logs, startLogging, stopLogging } from "../../src/log.js";
import { temporaryFolder } from "../support/workspace.js";

const repositoryRoot = path.resolve(import.meta.dirname, "../..");

describe("state kept once per process", () => {
  /** A second copy of a source module, bundled as CommonJS the way dist/clio.cjs carries it. */
  async function secondCopyOf(file: string): Promise<Record<string, (...args: never[]) => unknown>> {
    const folder = await temporaryFolder("clio-second-copy-");
    try {
      const outfile = path.join(folder.path, "copy.cjs");
      await build({ entryPoints: [path.join(repositoryRoot, file)], outfile, bundle: true, platform: "node", format: "cjs", logLevel: "warning" });
      return createRequire(import.meta.url)(outfile) as Record<string, (...args: never[]) => unknown>;
    } finally {
      await folder.remove();
    }
  }

  it("logging started through one copy of src/log.ts is on in another", async () => {
    const copy = await secondCopyOf("src/log.ts");
    const folder = await temporaryFolder("clio-log-copy-");
    try {
      expect(logs("info")).toBe(false);
      (copy.startLogging as (options: { level: string; file: string }) => void)({ level: "info", file: path.join(folder.path, "clio.log") });
      expect(logs("info")).toBe(true);
      expect(logs("debug")).toBe(false);
      stopLogging();
      expect((copy.logs as (level: string) => boolean)("info")).toBe(false);
      startLogging({ level: "debug", file: path.join(folder.path, "clio.log") });
      expect((copy.logs as (level: string) => boolean)("debug")).toBe(true);
    } finally {
      stopLogging();
      await folder.remove();
    }
  });

  it("a command watching for interruptions through one copy of src/cli/interrupts.ts claims the signals for the other", async () => {
    const copy = await secondCopyOf("src/cli/interrupts.ts");
    expect(signalsClaimed()).toBe(false);
    const watch = (copy.watchInterrupts as () => ReturnType<typeof watchInterrupts>)();
    try {
      expect(signalsClaimed()).toBe(true);
    } finally {
      watch.dispose();
    }
    expect(signalsClaimed()).toBe(false);
    expect((copy.signalsClaimed as () => boolean)()).toBe(false);
  });
});
