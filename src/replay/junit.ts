/**
 * JUnit XML, the report CI systems read: one <testsuite> per script (or fuzz target), one
 * <testcase> per command (or property), a <failure> with the readable difference when it failed.
 */

export interface JunitCase {
  name: string;
  /** Seconds, when known. */
  time?: number;
  /** Why it failed: a one-line message and the full text. */
  failure?: { message: string; text: string };
}

export interface JunitSuite {
  name: string;
  /** The file it came from (the `file` attribute). */
  file?: string;
  time?: number;
  cases: JunitCase[];
}

/** Text made safe for XML 1.0: escaped, and characters XML cannot hold replaced by U+FFFD. */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const seconds = (time: number | undefined) => (time === undefined ? "" : ` time="${time.toFixed(3)}"`);

export function junitReport(suites: readonly JunitSuite[], name = "clio"): string {
  const count = (suite: JunitSuite) => suite.cases.length;
  const failures = (suite: JunitSuite) => suite.cases.filter((entry) => entry.failure).length;
  const total = suites.reduce((sum, suite) => sum + count(suite), 0);
  const failed = suites.reduce((sum, suite) => sum + failures(suite), 0);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${xmlText(name)}" tests="${total}" failures="${failed}" errors="0">`];
  for (const suite of suites) {
    const file = suite.file === undefined ? "" : ` file="${xmlText(suite.file)}"`;
    lines.push(`  <testsuite name="${xmlText(suite.name)}"${file} tests="${count(suite)}" failures="${failures(suite)}" errors="0" skipped="0"${seconds(suite.time)}>`);
    for (const entry of suite.cases) {
      const opening = `    <testcase classname="${xmlText(suite.name)}" name="${xmlText(entry.name)}"${seconds(entry.time)}`;
      if (!entry.failure) {
        lines.push(`${opening}/>`);
        continue;
      }
      lines.push(`${opening}>`, `      <failure message="${xmlText(entry.failure.message)}">${xmlText(entry.failure.text)}</failure>`, "    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}
