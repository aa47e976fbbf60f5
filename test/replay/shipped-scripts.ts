/** The scripts shipped in sessions/scripts (and the demo), with where they run and what they expect. */
import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

export const repositoryRoot = path.resolve(import.meta.dirname, "../..");
export const scriptsFolder = path.join(repositoryRoot, "sessions", "scripts");
export const scriptsFixture = path.join(scriptsFolder, "fixture");
export const bundledCli = path.join(repositoryRoot, "dist", "clio.cjs");

export interface ShippedScript {
  name: string;
  script: string;
  expectations: string;
  fixture: string;
}

/** Every `NAME.md` in sessions/scripts with its `NAME.expected.json`, the demo, and this docs tutorial. */
export function shippedScripts(): ShippedScript[] {
  const scripts = readdirSync(scriptsFolder)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => ({
      name,
      script: path.join(scriptsFolder, name),
      expectations: path.join(scriptsFolder, name.replace(/\.md$/, ".expected.json")),
      fixture: scriptsFixture,
    }));
  const demo = {
    name: "demo",
    script: path.join(repositoryRoot, "sessions", "demo", "reply.md"),
    expectations: path.join(scriptsFolder, "demo.expected.json"),
    fixture: path.join(repositoryRoot, "sessions", "demo", "workspace"),
  };
  const docs = {
    name: "docs/scripts.md",
    script: path.join(repositoryRoot, "docs", "scripts.md"),
    expectations: path.join(repositoryRoot, "test", "replay", "docs-scripts.expected.json"),
    fixture: scriptsFixture,
  };
  return [...scripts, ...(existsSync(demo.expectations) ? [demo] : []), docs];
}

/** The script file a protocol ships: `FILE_OP` → `file-op.md`. */
export function scriptNameFor(protocol: string): string {
  return `${protocol.toLowerCase().replace(/_/g, "-")}.md`;
}

/** A HOME whose git config names the author the GIT script's expectations were recorded with. */
export async function scriptsHome(folder: string): Promise<NodeJS.ProcessEnv> {
  const home = path.join(folder, "home");
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, ".gitconfig"), "[user]\n\tname = Clio Scripts\n\temail = scripts@example.com\n");
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), CLIO_HOME: home, NO_COLOR: "1" };
}
