/**
 * A corpus of failures (`clio fuzz --corpus DIR`): every shrunk counterexample is saved as one
 * JSON file, and every run checks the saved cases again first, so a bug once found stays found
 * until it is fixed — and a fixed one says so.
 *
 *     { "version": 1, "kind": "grammar", "target": "grammar: …", "seed": 1, "runs": 100,
 *       "problem": "…", "value": … }
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { FuzzFailure } from "./protocol-fuzz.js";

export const CORPUS_FORMAT_VERSION = 1;

export interface CorpusCase {
  file: string;
  kind: "grammar" | "protocol";
  target: string;
  seed: number;
  runs: number;
  problem: string;
  value: unknown;
}

const caseSchema = z
  .object({
    version: z.literal(CORPUS_FORMAT_VERSION),
    kind: z.enum(["grammar", "protocol"]),
    target: z.string().min(1),
    seed: z.number().int(),
    runs: z.number().int().positive(),
    problem: z.string(),
    value: z.unknown(),
  })
  .strict();

/** A corpus folder or case that cannot be used; the message names the file and how to fix it. */
export class CorpusError extends Error {}

/** The saved cases, oldest name first; a missing folder is an empty corpus. */
export async function loadCorpus(folder: string): Promise<CorpusCase[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.endsWith(".json")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new CorpusError(`Cannot read the corpus folder ${folder}: ${(error as Error).message}.`);
  }
  const cases: CorpusCase[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    let document: unknown;
    try {
      document = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      throw new CorpusError(`${file} is not a corpus case: ${(error as Error).message}. Fix it or remove it (clio writes cases there itself).`);
    }
    const checked = caseSchema.safeParse(document);
    if (!checked.success || checked.data.value === undefined) {
      const issue = checked.success ? { path: ["value"], message: "Required" } : checked.error.issues[0]!;
      throw new CorpusError(`${file} is not a corpus case: ${issue.path.join(".") || "the document"}: ${issue.message}. Fix it or remove it (clio writes cases there itself).`);
    }
    const { version: _version, ...rest } = checked.data;
    cases.push({ file, ...rest, value: rest.value });
  }
  return cases;
}

/** Saves a failure's shrunk case (once: the name comes from its content); gives the file. */
export async function saveCase(folder: string, failure: FuzzFailure): Promise<string> {
  const document = {
    version: CORPUS_FORMAT_VERSION,
    kind: failure.kind,
    target: failure.target,
    seed: failure.seed,
    runs: failure.runs,
    problem: failure.problem,
    value: failure.value ?? failure.script,
  };
  const digest = createHash("sha256")
    .update(JSON.stringify([failure.target, document.value]))
    .digest("hex")
    .slice(0, 12);
  const slug = failure.target
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, `${slug}-${digest}.json`);
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}
