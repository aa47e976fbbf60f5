/**
 * The part of the dialect recognizer (recognizer.ts) that reads tags: after `<`, a tag's name;
 * the attributes of `<invoke` and of an element named after something registered (`<read_file
 * path="a.ts"/>`); then the body of a tag, up to its closing tag.
 */
import { InsideReader } from "./inside.js";
import { Shape } from "./finding.js";
import { isNameCharacter } from "./near-name.js";
import { APOSTROPHE, DOT, FULLWIDTH_PIPE, GREATER, LESS, LINE_FEED, Mode, PIPE, QUOTE, SLASH, SPACE, TAB } from "./states.js";

/** An `<invoke …>` tag's attributes longer than this are not a call's. */
const MAX_ATTRIBUTES = 512;
/**
 * The tags whose body is a call as `<tool_call>`'s is (Hermes, Qwen): `<function_call>`, `<tools>`,
 * Apriel's `<tool_calls>` and Nemotron's `<TOOLCALL>` wrap JSON calls or arrays of them.
 */
const JSON_CALL_TAGS = new Set(["tool_call", "function_call", "tools", "tool_calls", "toolcall"]);

export abstract class TagReader extends InsideReader {
  /** After `<`: a tag's name, and the attributes of `<invoke` or of an element named after something registered. */
  protected tagStart(input: string, i: number, base: number, code: number): number {
    if (this.mode === Mode.ElementAttributes) return this.elementAttributes(input, i, base, code);
    if (this.mode === Mode.TagAttributes) {
      if (code === GREATER) {
        this.openTag(Shape.Invoke, "</invoke>");
        return i + 1;
      }
      if (code === LINE_FEED || code === LESS || ++this.boundedLength > MAX_ATTRIBUTES) return this.abandon(i);
      return i + 1;
    }
    if (this.tagNameGoesOn(code)) {
      this.name += input[i];
      return i + 1;
    }
    return this.name.length >= this.nameLimit && isTagNameCharacter(code) ? this.abandon(i) : this.endTagName(i, code);
  }

  private endTagName(i: number, code: number): number {
    const name = this.name;
    const lower = name.toLowerCase();
    if ((code === SPACE || code === TAB) && lower === "invoke") {
      this.mode = Mode.TagAttributes;
      this.boundedLength = 0;
      return i + 1;
    }
    if (name === "" && (code === PIPE || code === FULLWIDTH_PIPE)) {
      this.mode = Mode.Marker;
      this.matched = 0;
      this.markerPipe = code;
      return i + 1;
    }
    if ((code === SPACE || code === TAB || code === SLASH) && name !== "" && (JSON_CALL_TAGS.has(lower) || this.vocabulary.resolve(name, true))) {
      // `<read_file path="a.ts">`, `<FILE_OP action="read" path="a.ts"/>`: arguments as attributes; `<tool_call name="read_file">`.
      this.mode = Mode.ElementAttributes;
      this.boundedLength = 0;
      this.inString = 0;
      this.selfClosing = code === SLASH;
      return i + 1;
    }
    if (code !== GREATER || name === "") return this.abandon(i);
    if (JSON_CALL_TAGS.has(lower)) this.openTag(Shape.ToolCall, `</${lower}>`);
    else if (lower.startsWith("function=") && name.length > 9) this.openTag(Shape.FunctionTags, "</function>");
    else if (this.vocabulary.resolve(name, true)) this.openTag(Shape.Element, `</${lower}>`);
    else return this.abandon(i);
    return i + 1;
  }

  /**
   * In an element's (or a `<tool_call>`'s) start tag after its name: attributes (quoted values skipped whole) on its line,
   * up to `>`, which opens its body, or `/>`, which ends the element there.
   */
  private elementAttributes(input: string, i: number, base: number, code: number): number {
    if (code === LINE_FEED || ++this.boundedLength > MAX_ATTRIBUTES) return this.abandon(i);
    if (this.inString !== 0) {
      if (code === this.inString) this.inString = 0;
      return i + 1;
    }
    if (code === LESS) return this.abandon(i);
    if (code === GREATER) {
      const lower = this.name.toLowerCase();
      const shape = JSON_CALL_TAGS.has(lower) ? Shape.ToolCall : Shape.Element;
      if (!this.selfClosing) {
        this.openTag(shape, `</${lower}>`);
        return i + 1;
      }
      this.shape = shape;
      this.closer = "";
      this.completeAt(input, i + 1, base);
      return i + 1;
    }
    if (code === QUOTE || code === APOSTROPHE) this.inString = code;
    this.selfClosing = code === SLASH;
    return i + 1;
  }

  protected openTag(shape: Shape, closer: string): void {
    this.mode = Mode.TagBody;
    this.shape = shape;
    this.closer = closer;
    this.matched = 0;
  }

  /** After `<`: whether `code` adds to the tag's name (not past the name limit). */
  protected tagNameGoesOn(code: number): boolean {
    return isTagNameCharacter(code) && this.name.length < this.nameLimit;
  }

  /** Inside a tag's body, looking for its closing tag (any case). */
  protected tagBody(input: string, i: number, base: number, code: number): number {
    if (this.matched === 0) {
      const less = input.indexOf("<", i);
      const stop = less < 0 ? input.length : less;
      // The next line feed is remembered per chunk, so no stretch is searched twice.
      if (this.nextFeed !== -1 && this.nextFeed < i) this.nextFeed = input.indexOf("\n", i);
      while (this.nextFeed >= 0 && this.nextFeed < stop) {
        this.newline(base + this.nextFeed);
        this.nextFeed = input.indexOf("\n", this.nextFeed + 1);
      }
      if (less < 0) return input.length;
      this.matched = 1;
      return less + 1;
    }
    const expected = this.closer.charCodeAt(this.matched);
    const lower = code >= 0x41 && code <= 0x5a ? code + 32 : code;
    if (lower === expected) {
      if (++this.matched === this.closer.length) this.completeAt(input, i + 1, base);
      return i + 1;
    }
    this.matched = 0;
    if (code === LINE_FEED) this.newline(base + i);
    return code === LESS ? i : i + 1;
  }
}

/** A character of a tag's name after `<`: a name character, `.`, `=` (`<function=…`) or `-`. */
function isTagNameCharacter(code: number): boolean {
  return isNameCharacter(code) || code === DOT || code === 0x3d || code === 0x2d;
}
