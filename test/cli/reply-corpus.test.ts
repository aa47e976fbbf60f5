/**
 * The reply corpus (test/fixtures/replies, made by make-corpus.ts): each reply is classified by
 * what `clio parse` reports for it, through the same path (parseText + buildParseReport):
 *
 * - as intended: exactly the meant commands run;
 * - fixed in one round: what did not run is given back by a hint (or a mention's command)
 *   that, applied literally, yields the meant command;
 * - ran something else: a command ran that was not meant (must never happen);
 * - unhelpful: an error or mention came back, but no hint yields the meant command;
 * - silent: meant commands did not run and nothing was said (must never happen).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildParseReport, parseText, type ParseReport } from "../../src/parse-report.js";
import { loadBuiltinProtocols, type ProtocolRegistry } from "../../src/registry.js";

type Verdict = "as intended" | "fixed in one round" | "ran something else" | "unhelpful error" | "silent";

interface Intended {
  protocol: string;
  action: string;
  args: Record<string, string>;
}

const folder = path.join(import.meta.dirname, "../fixtures/replies");
const replies = readdirSync(folder)
  .filter((file) => file.endsWith(".md"))
  .sort()
  .map((file) => {
    const sidecar = JSON.parse(readFileSync(path.join(folder, file.replace(/\.md$/, ".json")), "utf8")) as { family: string; intended: Intended[] };
    return { file, text: readFileSync(path.join(folder, file), "utf8"), ...sidecar };
  });

function identity(command: Intended): string {
  const args = Object.entries(command.args)
    .filter(([key]) => key !== "action")
    .sort(([left], [right]) => left.localeCompare(right));
  return JSON.stringify([command.protocol, command.action, args]);
}

function report(text: string, registry: ProtocolRegistry, chunk?: number): ParseReport {
  return buildParseReport(parseText(text, chunk, registry), registry, text);
}

function classify(text: string, intended: Intended[], registry: ProtocolRegistry): Verdict {
  const found = report(text, registry);
  const meant = new Set(intended.map(identity));
  const ran = new Set(found.commands.map(identity));
  if ([...ran].some((command) => !meant.has(command))) return "ran something else";
  const missing = [...meant].filter((command) => !ran.has(command));
  if (missing.length === 0) return "as intended";
  const fixes = new Set<string>();
  const hints = [...found.errors.map((error) => error.hint), ...found.mentions.map((mention) => mention.hint ?? mention.text)];
  for (const hint of hints) if (hint) for (const command of report(hint, registry).commands) fixes.add(identity(command));
  if (missing.every((command) => fixes.has(command))) return "fixed in one round";
  return found.errors.length > 0 || found.mentions.length > 0 ? "unhelpful error" : "silent";
}

describe("the reply corpus, classified as `clio parse` reports it", () => {
  let registry: ProtocolRegistry;
  beforeAll(async () => {
    registry = await loadBuiltinProtocols();
  });

  it("holds at least 380 replies covering every family, with replies where nothing should run", () => {
    expect(replies.length).toBeGreaterThanOrEqual(380);
    const families = new Set(replies.map((reply) => reply.family));
    for (const family of [
      "clio",
      "hermes",
      "json",
      "json-fence",
      "qwen-xml",
      "glm-xml",
      "invoke-xml",
      "deepseek",
      "kimi",
      "internlm",
      "harmony",
      "mistral",
      "qwen-agent",
      "python-list",
      "firefunction",
      "wrappers",
      "functionary",
      "react",
      "xml",
      "function",
      "gemini",
      "near-miss",
      "stray-quote",
      "missing-colon",
      "unclosed",
      "wrong-name",
      "heredoc",
      "base64",
      "fenced",
      "described",
      "nothing",
      "bad-input",
    ]) {
      expect(families).toContain(family);
    }
    expect(replies.filter((reply) => reply.intended.length === 0).length).toBeGreaterThanOrEqual(75);
  });

  it("runs as intended or fixes in one round at least 95%, never silently, and never runs what was not meant", () => {
    const table = new Map<string, Map<Verdict, number>>();
    const misses: string[] = [];
    for (const reply of replies) {
      const verdict = classify(reply.text, reply.intended, registry);
      const row = table.get(reply.family) ?? new Map<Verdict, number>();
      row.set(verdict, (row.get(verdict) ?? 0) + 1);
      table.set(reply.family, row);
      if (verdict !== "as intended" && verdict !== "fixed in one round") misses.push(`${reply.file}: ${verdict}`);
    }
    const count = (verdict: Verdict) => [...table.values()].reduce((sum, row) => sum + (row.get(verdict) ?? 0), 0);
    const good = count("as intended") + count("fixed in one round");
    expect(misses).toEqual([]);
    expect(count("silent")).toBe(0);
    expect(count("ran something else")).toBe(0);
    expect(good / replies.length).toBeGreaterThanOrEqual(0.95);
  });

  it("reports every reply the same when it streams in one character at a time", () => {
    for (const reply of replies) expect(report(reply.text, registry, 1), reply.file).toEqual(report(reply.text, registry));
  });
});
