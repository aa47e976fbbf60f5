/**
 * Prints how clio's verdicts compare with commonmark.js's over the spec's examples and their
 * variations, with a few samples of each disagreement (for docs/protocol.md and debugging):
 *
 *     node --import tsx test/grammar/commonmark/report.ts [samples per kind]
 */
import { specExamples, variations, withMarkerEverywhere } from "./oracle.js";

const samplesPerKind = Number(process.argv[2] ?? 2);
const counts: Record<string, number> = {};
const samples: Record<string, string[]> = {};
for (const example of specExamples()) {
  for (const variant of [{ name: "as is", markdown: example.markdown }, ...variations(example.markdown)]) {
    for (const found of withMarkerEverywhere(variant.markdown)) {
      const key = `${found.reference} -> ${found.clio}`;
      counts[key] = (counts[key] ?? 0) + 1;
      const runs = (found.reference === "code" || found.reference === "html") && found.clio === "command";
      const inert = found.reference === "prose" && found.clio.startsWith("mention") && found.clio !== "mention:quote";
      if (!runs && !inert) continue;
      const kind = `${runs ? "RUNS" : "INERT"} ${example.section} (${variant.name === "as is" ? "spec" : "variation"})`;
      (samples[kind] ??= []).push(`#${example.number} ${variant.name}: ${JSON.stringify(found.markdown)}`);
    }
  }
}
console.log(counts);
for (const [kind, list] of Object.entries(samples)) console.log(`${kind}: ${list.length}\n  ${list.slice(0, samplesPerKind).join("\n  ")}`);
