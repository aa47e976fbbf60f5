/**
 * The code-search benchmark's corpora: real codebases this project did not write, read from
 * where their packages install them (an npm dependency, Debian -dev and python3- packages) and
 * copied into temporary workspaces. Nothing of them is committed to this repository.
 */
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RetrievalQuery } from "../../tools/index/evaluate.js";

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixture = path.join(repository, "test/fixtures/code-search");

export interface CorpusSpec {
  name: string;
  language: string;
  /** The package that ships the source. */
  package: string;
  /** How to install it. */
  install: string;
  parts: Array<{ from: string; to: string }>;
}

export interface CodeSearchQuestion extends RetrievalQuery {
  corpus: string;
  /** `words` (a question in plain words), `identifier` or `symbol` (a name as written in code). */
  kind: "words" | "identifier" | "symbol";
  /** Every third question is held out: never looked at while tuning the ranking. */
  heldOut: boolean;
}

export function corpusSpecs(): CorpusSpec[] {
  return (JSON.parse(readFileSync(path.join(fixture, "corpora.json"), "utf8")) as { corpora: CorpusSpec[] }).corpora;
}

export function codeSearchQuestions(): CodeSearchQuestion[] {
  const raw = JSON.parse(readFileSync(path.join(fixture, "questions.json"), "utf8")) as Array<Omit<CodeSearchQuestion, "heldOut">>;
  return raw.map((question, position) => ({ ...question, heldOut: position % 3 === 2 }));
}

function sourceOf(part: { from: string }): string {
  return path.isAbsolute(part.from) ? part.from : path.join(repository, part.from);
}

/** Corpora whose sources are missing, each with the package to install: empty when all are there. */
export function missingCorpora(specs: CorpusSpec[] = corpusSpecs()): string[] {
  return specs
    .filter((spec) => spec.parts.some((part) => !existsSync(sourceOf(part))))
    .map(
      (spec) =>
        `${spec.name}: ${spec.parts
          .map(sourceOf)
          .filter((source) => !existsSync(source))
          .join(", ")} is missing — install the ${spec.package} (${spec.install}); .ci/run does this in CI.`,
    );
}

/** Copies one corpus into a new temporary workspace (compiled Python caches left out). */
export async function prepareCorpus(spec: CorpusSpec): Promise<{ root: string; remove(): Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), `clio-corpus-${spec.name}-`));
  for (const part of spec.parts) {
    const source = sourceOf(part);
    if (!existsSync(source)) throw new Error(missingCorpora().join("\n"));
    await cp(source, path.join(root, part.to), { recursive: true, filter: (name) => !name.includes("__pycache__") });
  }
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
