/**
 * Protocols that break the fuzz properties on purpose, one way each, so the tests can show the
 * fuzzer catches them; and one that records what its exec and network handlers were given.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineAction, defineProtocol, parameter, type ProtocolDefinition } from "../../protocols/contract/protocol.js";

/** A protocol with one read action whose handler does `work`. */
export function oneActionProtocol(name: string, work: (root: string) => Promise<string>): ProtocolDefinition {
  return defineProtocol({
    name,
    summary: `Breaks a fuzz property (${name}).`,
    actions: {
      go: defineAction<{ note: string | undefined }>({
        summary: "Does the one thing.",
        permission: "read",
        parameters: { note: parameter.optionalText("ignored") },
        describe: () => `Doing ${name}`,
        handler: async (_args, { environment }) => ({ output: await work(environment.workspace.root) }),
      }),
    },
  });
}

/** Writes into the sentinel folder beside the workspace, past every check. */
export const escapingProtocol = oneActionProtocol("ESCAPE", async (root) => {
  await writeFile(path.join(root, "..", "sentinel", "planted.txt"), "escaped\n");
  return "wrote outside";
});

/** Starts a process in its own session and never stops it. */
export const leakingProtocol = oneActionProtocol("LEAK", async (root) => {
  const child = spawn("sleep", ["30"], { cwd: root, detached: true, stdio: "ignore" });
  child.unref();
  return `started ${child.pid}`;
});

/**
 * Starts a writer that leaves the process tree (a shell's background job, adopted by init when the
 * shell exits) and, from the root folder, keeps making files in the workspace while the fuzzer
 * disposes and removes the sandbox, until the sandbox is gone (at most 3 s: on a loaded machine the
 * fuzzer may reach the removal after a second): the leftover-process check, which looks for
 * descendants and for processes working in the sandbox, cannot see it.
 */
export const outlivingProtocol = oneActionProtocol("OUTLIVE", async (root) => {
  // The clock is read every 500 files only (each read forks `date`), so the writer makes files without pause.
  const writer =
    'end=$(( $(date +%s%N) + 3000000000 )); i=0; n=0; while [ -d "$0" ]; do : > "$0/w$i" 2>/dev/null; : > "$0/v$i" 2>/dev/null; i=$(( (i + 1) % 40 )); n=$(( n + 1 )); if [ $(( n % 500 )) -eq 0 ] && [ $(date +%s%N) -ge $end ]; then break; fi; done';
  const shell = spawn("sh", ["-c", `(${writer}) >/dev/null 2>&1 &`, root], { cwd: "/", stdio: "ignore" });
  await new Promise((resolve) => shell.once("exit", resolve));
  // On a loaded machine the background job may not have run yet: the case ends only once it writes.
  const deadline = Date.now() + 3000;
  while (!existsSync(path.join(root, "w0")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return "started a writer that outlives the case";
});

/** Never finishes. */
export const hangingProtocol = oneActionProtocol("HANG", () => new Promise<string>(() => {}));

/** Lets an untyped exception escape. */
export const throwingProtocol = oneActionProtocol("THROW", async () => {
  throw new TypeError("cannot read properties of undefined (reading 'length')");
});

/** Records every value its exec and network handlers receive; the handlers do nothing else. */
export function recordingProtocol(seen: { exec: string[][]; network: string[][] }): ProtocolDefinition {
  return defineProtocol({
    name: "RECORD",
    summary: "Records what it is given.",
    actions: {
      run: defineAction<{ command: string; cwd: string | undefined; program: string | undefined; args: unknown; timeout: number | undefined }>({
        summary: "Pretends to run a command.",
        permission: "exec",
        parameters: {
          command: parameter.text("a command"),
          cwd: parameter.optionalText("a folder"),
          program: parameter.word("an interpreter", z.string().optional()),
          args: parameter.json("arguments", z.unknown().optional()),
          timeout: parameter.integer("seconds", { min: 1 }),
        },
        describe: (args) => `Running ${args.command}`,
        async handler(args) {
          seen.exec.push([args.command, args.cwd ?? "", args.program ?? "", JSON.stringify(args.args ?? null)]);
          return { output: "ran" };
        },
      }),
      fetch: defineAction<{ url: string; remote: string | undefined }>({
        summary: "Pretends to fetch.",
        permission: "network",
        parameters: { url: parameter.text("an address"), remote: parameter.word("a remote", z.string().optional()) },
        describe: (args) => `Fetching ${args.url}`,
        async handler(args) {
          seen.network.push([args.url, args.remote ?? ""]);
          return { output: "fetched" };
        },
      }),
    },
  });
}
