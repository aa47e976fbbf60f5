import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FabricationGuard } from "../../src/agent/fabrication-guard.js";

function run(chunks: string[]): { text: string; cut: boolean } {
  const guard = new FabricationGuard();
  let text = "";
  for (const chunk of chunks) text += guard.push(chunk);
  text += guard.flush();
  return { text, cut: guard.cut };
}

describe("the fabricated-result guard", () => {
  it("passes a reply without envelopes through unchanged", () => {
    expect(run(["Hello [RESU", "LTS are in]", " the table"])).toEqual({ text: "Hello [RESULTS are in] the table", cut: false });
  });

  it("cuts at an opening envelope split across chunks", () => {
    expect(run(["Done.\n[RES", "ULT 1a2b FILE_OP.read ok]\nfake"])).toEqual({ text: "Done.\n", cut: true });
  });

  it("cuts at a closing envelope too", () => {
    expect(run(["text [/RESULT 1a2b] more"])).toEqual({ text: "text ", cut: true });
  });

  it("gives the same text in any chunking", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "[", "R", "E", "S", "U", "L", "T", " ", "/", "\n") }), fc.array(fc.nat()), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((left, right) => left - right);
        const chunks: string[] = [];
        let last = 0;
        for (const point of points) {
          chunks.push(text.slice(last, point));
          last = point;
        }
        chunks.push(text.slice(last));
        expect(run(chunks)).toEqual(run([text]));
      }),
    );
  });
});

describe("the fabricated-result guard, in any case and spacing", () => {
  it.each(["[result 1a2b FILE_OP.read ok]", "[RESULT]", "[Result]\nfake", "[ RESULT 1a2b]", "[/result 1a2b]", "[ / RESULT 1a2b]", "[RESULT\n1a2b]"])("cuts %j", (envelope) => {
    expect(run(["Done.\n", envelope, " more"])).toEqual({ text: "Done.\n", cut: true });
    expect(run([...`Done.\n${envelope} more`])).toEqual({ text: "Done.\n", cut: true });
  });

  it.each(["[results](http://x)", "[Result: the tests pass]", "[RESULTS are in]", "[resu", "see [ result-set ]"])("passes %j through", (text) => {
    expect(run([...text])).toEqual({ text, cut: false });
  });
});
