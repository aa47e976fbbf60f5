/**
 * `clio/fuzz`: the arbitraries and the fuzz laws as a library, for a protocol author's own test
 * runner (vitest, jest, node:test). fast-check is a dependency of clio; pass its `fc` your own
 * properties over these arbitraries, or run the laws whole:
 *
 *     import { assertProtocolHolds, commandArbitrary } from "clio/fuzz";
 *     await assertProtocolHolds(myProtocol, { runs: 50, seed: 1 });
 */
import type { ProtocolDefinition } from "../../protocols/contract/protocol.js";
import { fuzzGrammar, type GrammarFuzzOptions } from "./grammar-fuzz.js";
import { fuzzProtocol, reproductionFor, type ProtocolFuzzOptions } from "./protocol-fuzz.js";

export {
  bareTextArbitrary,
  brokenCommandArbitrary,
  chunkingArbitrary,
  commandShapedArbitrary,
  documentArbitrary,
  documentPiecesArbitrary,
  escapedTextArbitrary,
  keyArbitrary,
  nearMissArbitrary,
  printableCommandArbitrary,
  protocolNameArbitrary,
  trailingBlanksArbitrary,
  valueTextArbitrary,
  type ChunkingOptions,
  type DocumentOptions,
  type DocumentPiecesOptions,
  type ExpectedFindings,
  type GeneratedDocument,
  type LengthOptions,
  type NearMissOptions,
  type PrintableCommandOptions,
  type ValueTextOptions,
} from "../../grammar/arbitraries.js";
export type { PrintableCommand } from "../../grammar/printer.js";
export { isSafeExecValue, LOCAL_URLS, SAFE_COMMANDS, SAFE_JSON, SAFE_WORDS, valueArbitrary, type FuzzTargets, type ValueOptions } from "./arbitraries.js";
export { commandArbitrary, malformedCommandArbitrary, scriptArbitrary, type CommandOptions, type GeneratedCommand, type ScriptOptions } from "./commands.js";
// What a protocol author needs to write the protocol these fuzz: its definition's types and builders, and typed errors.
export {
  defineAction,
  defineProtocol,
  parameter,
  type ActionDefinition,
  type ParameterDefinition,
  type PermissionClass,
  type ProtocolDefinition,
} from "../../protocols/contract/protocol.js";
export { ProtocolError } from "../../protocols/contract/errors.js";
export { clioGrammar, fuzzGrammar, type GrammarFuzzOptions } from "./grammar-fuzz.js";
export { grammarLaws, LawViolation, type GrammarUnderTest, type Law, type LawStatistics } from "./grammar-laws.js";
export { chevrotainReading, compareRecognisers, type Agreement, type Recognisers, type Verdict } from "./recognisers.js";
export { fuzzProtocol, type FuzzFailure, type FuzzOutcome, type ProtocolFuzzOptions } from "./protocol-fuzz.js";
export { compactString, sideBySide } from "./show.js";

/** A fuzz law that did not hold; the message says what failed and how to reproduce it. */
export class FuzzLawError extends Error {}

/**
 * Runs the robustness property for a protocol and throws a FuzzLawError — with the shrunk
 * script, the `clio replay` command that reproduces it in a kept sandbox, and the seed — when it fails.
 */
export async function assertProtocolHolds(protocol: ProtocolDefinition, options: ProtocolFuzzOptions): Promise<void> {
  const outcome = await fuzzProtocol(protocol, options);
  if (!outcome.failure) return;
  const { command } = await reproductionFor(outcome.failure);
  throw new FuzzLawError(
    `${protocol.name} failed its robustness property (seed ${outcome.failure.seed}):\n${outcome.failure.problem}\n` +
      `counterexample: ${outcome.failure.script}\nreproduce it: ${command}\nrerun: the same call with { runs: ${options.runs}, seed: ${outcome.failure.seed} }`,
  );
}

/** Runs the grammar laws (against clio's grammar, or `options.grammar`) and throws a FuzzLawError naming each that failed. */
export async function assertGrammarHolds(options: GrammarFuzzOptions): Promise<void> {
  const failures = (await fuzzGrammar(options)).flatMap((outcome) => (outcome.failure ? [outcome.failure] : []));
  if (failures.length === 0) return;
  throw new FuzzLawError(
    failures
      .map(
        (failure) =>
          `${failure.target} failed (seed ${failure.seed}):\n${failure.problem}\ncounterexample: ${failure.script}\nrerun: clio fuzz --target grammar --seed ${failure.seed} --runs ${failure.runs}`,
      )
      .join("\n\n"),
  );
}
