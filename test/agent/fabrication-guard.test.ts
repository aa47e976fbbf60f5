import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "../../grammar/index.js";
import { FabricationGuard, RESULT_STOP_SEQUENCES } from "../../src/agent/fabrication-guard.js";
import { checkCommand } from "../../src/manager/check.js";
import { formatResultsForModel, type CommandResult } from "../../src/manager/result.js";
import { ProtocolRegistry } from "../../src/registry.js";

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

  it("guards exactly the envelope the interpreter writes: cut by the guard, stopped by the server, refused by the checker", () => {
    const result: CommandResult = {
      id: 1,
      ok: true,
      protocol: "FILE_OP",
      action: "read",
      args: {},
      permissionClass: "read",
      description: "Reading a",
      output: "hello",
      durationMs: 1,
      truncated: false,
      line: 1,
      column: 1,
    };
    const envelope = formatResultsForModel([result]);
    expect(run([`Done.\n${envelope}`])).toEqual({ text: "Done.\n", cut: true });
    expect(RESULT_STOP_SEQUENCES.some((stop) => envelope.startsWith(stop))).toBe(true);
    const closing = envelope.slice(envelope.lastIndexOf("\n") + 1);
    expect(run([`x ${closing}`])).toEqual({ text: "x ", cut: true });
    const [written] = parse("[RESULT:action=read:path=eA==]").commands;
    expect(written && checkCommand(written, new ProtocolRegistry())).toMatchObject({ ok: false, error: { code: "fabricated_result" } });
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
