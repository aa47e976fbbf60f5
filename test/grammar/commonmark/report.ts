import { specExamples, withMarkerEverywhere } from "./oracle.js";
const counts: Record<string, number> = {};
const samples: Record<string, string[]> = {};
for (const example of specExamples()) {
  for (const d of withMarkerEverywhere(example.markdown)) {
    const key = `${d.reference} -> ${d.clio}`;
    counts[key] = (counts[key] ?? 0) + 1;
    const bad = (d.reference === "code" || d.reference === "html") && d.clio === "command";
    const over = d.reference === "prose" && d.clio.startsWith("mention");
    if (bad || over) {
      const k = `${bad ? "BAD" : "OVER"} ${example.section}`;
      (samples[k] ??= []).push(`#${example.number} ${JSON.stringify(d.markdown)}`);
    }
  }
}
console.log(counts);
for (const [k, v] of Object.entries(samples)) console.log(k, v.length, v.slice(0, Number(process.env.N ?? 2)).join("  |  "));
