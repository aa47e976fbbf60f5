/**
 * The protocol language's grammar: parsing (one-shot and streaming), printing, base64 and
 * parameter decoding. Chevrotain is loaded with the parser but its lexer and parser are only
 * built on the first command found. Fuzzing helpers live in `grammar/arbitraries.js`.
 */
export { CallScanner } from "./dialects/call-scanner.js";
export { CallVocabulary, type CallVocabularyData, type VocabularyAlias } from "./dialects/vocabulary.js";
export type { Command, Dialect, Mention, MentionContext, Parameter, ParseResult, Position, Span, SyntaxError, SyntaxErrorCode, ValueForm } from "./ast.js";
export { decodeBase64, encodeBase64 } from "./base64.js";
export { decodeParameter, formatArgumentError, type DecodeResult, type ParameterKind } from "./kinds.js";
export { describeMentionContext } from "./mentions.js";
export { parse, parserFailure } from "./parse.js";
export { isBareSafe, print, printCanonical, type PrintableCommand } from "./printer.js";
export { StreamingScanner, type ParseEvent } from "./scanner.js";
