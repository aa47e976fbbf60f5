/**
 * A session as a regression test: its recorded commands become a script (one command a line)
 * and its recorded results the expectations that script's run is compared with.
 */
import { exportSession, isReplayable, type SessionData } from "../sessions/index.js";
import { buildExpectationFile, type ExpectationFile, type ExpectedResult } from "./expectations.js";
import { normaliseText } from "./normalise.js";

export interface SessionCheck {
  /** The session's commands as a protocol script, one per line. */
  script: string;
  expectations: ExpectationFile;
  /** Indexes (from 0) of commands whose recorded output was shortened by the store: their output is not compared. */
  shortened: Set<number>;
  /** Error codes of the commands left out: rejected before they ran, their text not kept (see `isReplayable`). */
  leftOut: string[];
}

/** The script name used in a session's expectations. */
export function sessionScriptName(id: string): string {
  return `session ${id}`;
}

export function sessionCheck(data: Readonly<SessionData>): SessionCheck {
  const context = { workspaceRoots: [data.workspace] };
  const sorted = [...data.commands].sort((left, right) => left.sequence - right.sequence);
  const commands = sorted.filter(isReplayable);
  const leftOut = sorted.filter((record) => !isReplayable(record)).map((record) => record.error?.code ?? "error");
  const shortened = new Set<number>();
  const results: ExpectedResult[] = commands.map((record, index) => {
    if (record.outputLength !== undefined) shortened.add(index);
    const output = normaliseText(record.output, context);
    const expected: ExpectedResult = {
      line: index + 1,
      column: 1,
      protocol: record.protocol,
      action: record.action,
      ok: record.ok,
      description: normaliseText(record.description, context),
      output: output === "" ? [] : output.split("\n"),
    };
    if (record.error) expected.error = { code: record.error.code, message: normaliseText(record.error.message, context) };
    return expected;
  });
  return {
    script: exportSession(data as SessionData, "script"),
    expectations: buildExpectationFile(sessionScriptName(data.id), results),
    shortened,
    leftOut,
  };
}

/** A run's results with the outputs the session could not keep taken over from the session, so they compare equal. */
export function withShortenedOutputsIgnored(actual: ExpectedResult[], check: SessionCheck): ExpectedResult[] {
  return actual.map((result, index) => {
    const recorded = check.expectations.results[index];
    return check.shortened.has(index) && recorded ? { ...result, output: recorded.output } : result;
  });
}
