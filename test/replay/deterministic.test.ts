/** Issue 21 (1): a replay gives the same commits, log order and outputs on every machine and every run. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";
import { parseGitAuthor } from "../../src/replay/deterministic.js";
import { runScript } from "../../src/replay/run-script.js";
import { temporaryFolder } from "../support/workspace.js";

let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let registry: ProtocolRegistry;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  folder = await temporaryFolder("clio-deterministic-");
  registry = await loadBuiltinProtocols();
  const home = path.join(folder.path, "home");
  await mkdir(home);
  // Whoever runs the replay has their own name in their git config: it must not reach the results.
  await writeFile(path.join(home, ".gitconfig"), "[user]\n\tname = Somebody Else\n\temail = somebody@example.org\n");
  env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), FORCE_COLOR: "3", CLICOLOR_FORCE: "1" };
  delete env.NO_COLOR;
  await mkdir(path.join(folder.path, "fixture"));
  await writeFile(path.join(folder.path, "fixture", "a.txt"), "a\n");
});
afterAll(async () => {
  await folder.remove();
});

const gitScript = [
  "[GIT:action=init:branch=main]",
  '[GIT:action=commit:message="first":all=true]',
  '[FILE_OP:action=write:path="b.txt":content="b\\n"]',
  '[GIT:action=commit:message="second":all=true]',
  '[FILE_OP:action=write:path="c.txt":content="c\\n"]',
  '[GIT:action=commit:message="third":all=true]',
  "[GIT:action=log]",
].join("\n");

const replay = (text: string, more: Partial<Parameters<typeof runScript>[1]> = {}) =>
  runScript(text, { freshCopy: path.join(folder.path, "fixture"), permissionMode: "yolo", registry, env, ...more });

describe("deterministic replay", () => {
  it("commits with a fixed author and a clock that advances per commit, so hashes and log order never vary", async () => {
    const first = await replay(gitScript);
    const log = first.outcome.results.at(-1)!;
    expect(log.ok).toBe(true);
    expect(log.output).toContain("Clio Replay <replay@example.com>");
    expect(log.output).not.toContain("Somebody Else");
    const dates = [...log.output.matchAll(/ (\d{4}-\d\d-\d\dT[\d:]+Z) /g)].map((match) => match[1]);
    expect(dates).toEqual(["2026-01-01T00:02:00Z", "2026-01-01T00:01:00Z", "2026-01-01T00:00:00Z"]);
    expect(log.output.indexOf("third")).toBeLessThan(log.output.indexOf("second"));
    // A second run, at another time, gives the very same commits.
    const second = await replay(gitScript);
    // (the first result names the temporary workspace, which does differ)
    expect(second.outcome.results.slice(1).map((result) => result.output)).toEqual(first.outcome.results.slice(1).map((result) => result.output));
    expect(log.output).toMatch(/^[0-9a-f]{7} /);
  });

  it("takes another author when asked", async () => {
    const run = await replay(gitScript, { gitAuthor: { name: "Team CI", email: "ci@example.net" } });
    expect(run.outcome.results.at(-1)!.output).toContain("Team CI <ci@example.net>");
    expect(parseGitAuthor("Team CI <ci@example.net>")).toEqual({ name: "Team CI", email: "ci@example.net" });
    expect(parseGitAuthor("no email here")).toBeUndefined();
  });

  it("tells child processes not to colour their output", async () => {
    const run = await replay('[EXEC:action=run:command="echo NO_COLOR=$NO_COLOR FORCE_COLOR=$FORCE_COLOR CLICOLOR_FORCE=$CLICOLOR_FORCE"]');
    expect(run.outcome.results[0]!.output).toMatch(/NO_COLOR=1 FORCE_COLOR=0 CLICOLOR_FORCE=$/m);
  });
});
