import { describe, expect, it } from "vitest";
import { DEMO_PROMPT, demoCommand } from "../../src/cli/demo-command.js";

describe("the offline demo (npm start without a model)", () => {
  it("plays the recorded conversation through the real loop: reads, searches, edits, and the tests pass", async () => {
    let shown = "";
    const output = { isTTY: false, write: (text: string) => ((shown += text), true) };
    const exitCode = await demoCommand({ output, chunkSize: 7 });
    expect(shown).toContain(DEMO_PROMPT);
    expect(shown).toMatch(/✓ Read src\/calc\.js/);
    expect(shown).toMatch(/✓ Searched the code for "divide by zero"/);
    expect(shown).toMatch(/✓ Edited src\/calc\.js \(\+1/);
    const results = shown.split("\n").filter((line) => /^[✓✗] /.test(line));
    // The suite fails once before the fix (that is the bug), and passes after it.
    expect(results.filter((line) => line.startsWith("✗"))).toEqual([expect.stringMatching(/^✗ EXEC\.run exec_failed/)]);
    expect(results.at(-1)).toMatch(/^✓ .*npm test/);
    expect(shown).toContain("Finished (done) after 5 model replies");
    expect(exitCode).toBe(0);
  }, 60_000);
});
