/**
 * Character-level reading of `.srl` text: the framing words, rule-name
 * strings and integers, and the extents of the embedded FEEL expressions.
 *
 * The scanner never interprets FEEL. It only finds where an expression ends:
 * a condition at the word `then`, an action argument at `,` or `)`, in both
 * cases at bracket depth 0 and outside FEEL strings and comments, so a `then`
 * inside `(if a then b else c)` or a `)` inside `"a)"` does not end it.
 *
 * @module
 */

/** A framing error: caught by the parser and turned into a diagnostic. */
export class SrlSyntaxError extends Error {
  /** @param offset 0-based offset the error points at. */
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** Maps 0-based offsets to 1-based lines and columns. */
export class LineMap {
  readonly #starts: number[] = [0];

  /** Indexes the line starts of `text` (\n, \r\n and lone \r end a line). */
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\n" || (c === "\r" && text[i + 1] !== "\n")) this.#starts.push(i + 1);
    }
  }

  /** The 1-based line and column of `offset`. */
  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.#starts[lo] + 1 };
  }
}

/** A slice of the source: an embedded FEEL expression or an action argument. */
export interface Segment {
  /** The text with surrounding whitespace removed. */
  readonly text: string;
  /** 0-based offset of the first character of `text` (of the slice when it is blank). */
  readonly offset: number;
}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_-]/;
// Characters that may continue a FEEL name: a `then` touching one is part of a longer name.
const NAME_CHAR = /[\p{L}\p{N}_?.]/u;
const OPENERS = "([{";
const SIMPLE_ESCAPES = new Map([['"', '"'], ["'", "'"], ["\\", "\\"], ["n", "\n"], ["r", "\r"], [
  "t",
  "\t",
]]);
const CLOSERS = ")]}";

/** A cursor over `.srl` text. */
export class Scanner {
  /** Current 0-based offset. */
  pos = 0;

  /** Starts at the beginning of `text`. */
  constructor(readonly text: string) {}

  /** True once only whitespace and comments remain. */
  atEnd(): boolean {
    this.skipTrivia();
    return this.pos >= this.text.length;
  }

  /** Skips whitespace and FEEL-style `//` and `/* … *\/` comments. */
  skipTrivia(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\uFEFF") {
        this.pos++;
      } else if (c === "/" && t[this.pos + 1] === "/") {
        while (this.pos < t.length && t[this.pos] !== "\n" && t[this.pos] !== "\r") this.pos++;
      } else if (c === "/" && t[this.pos + 1] === "*") {
        this.pos = this.#commentEnd(this.pos);
      } else {
        return;
      }
    }
  }

  /** Reads a framing word (`rule`, `activation-group`, a verb …) or returns null. */
  word(): string | null {
    this.skipTrivia();
    const t = this.text;
    if (!WORD_START.test(t[this.pos] ?? "")) return null;
    const start = this.pos;
    while (this.pos < t.length && WORD_PART.test(t[this.pos])) this.pos++;
    return t.slice(start, this.pos);
  }

  /** Consumes `symbol` if it comes next. */
  accept(symbol: string): boolean {
    this.skipTrivia();
    if (!this.text.startsWith(symbol, this.pos)) return false;
    this.pos += symbol.length;
    return true;
  }

  /**
   * Reads a double-quoted string with FEEL's escapes (`\"`, `\\`, `\n`,
   * `\r`, `\t`, `\uXXXX`, `\UXXXXXX`); null when no string comes next.
   */
  string(): string | null {
    this.skipTrivia();
    const t = this.text;
    const start = this.pos;
    if (t[start] !== '"') return null;
    let out = "";
    let i = start + 1;
    while (t[i] !== '"') {
      if (i >= t.length || t[i] === "\n" || t[i] === "\r") {
        throw new SrlSyntaxError("unterminated string: a closing '\"' is missing", start);
      }
      if (t[i] !== "\\") {
        out += t[i++];
        continue;
      }
      const e = t[i + 1];
      const simple = SIMPLE_ESCAPES.get(e);
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === "u" || e === "U") {
        const width = e === "u" ? 4 : 6;
        const hex = t.slice(i + 2, i + 2 + width);
        const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? parseInt(hex, 16) : -1;
        if (code < 0 || code > 0x10FFFF) {
          throw new SrlSyntaxError(`'\\${e}' must be followed by ${width} hexadecimal digits`, i);
        }
        out += e === "u" ? String.fromCharCode(code) : String.fromCodePoint(code);
        i += 2 + width;
      } else {
        // As in FEEL, a backslash that starts no escape stands for itself.
        out += t[i++];
      }
    }
    this.pos = i + 1;
    return out;
  }

  /** Reads an optionally signed decimal integer, or returns null. */
  integer(): string | null {
    this.skipTrivia();
    const m = /^[+-]?[0-9]+/.exec(this.text.slice(this.pos, this.pos + 40));
    if (m === null || /[A-Za-z0-9_.-]/.test(this.text[this.pos + m[0].length] ?? "")) return null;
    this.pos += m[0].length;
    return m[0];
  }

  /**
   * Scans a condition up to the word `then` at bracket depth 0 and leaves the
   * cursor on it; null (cursor unchanged) when the text ends first.
   */
  condition(): Segment | null {
    const start = this.pos;
    const end = this.#scan(start, (i, depth) => depth <= 0 && this.#isThen(i));
    if (end < 0) return null;
    this.pos = end;
    return segment(this.text, start, end);
  }

  /**
   * Scans the arguments of an action after its `(` up to the matching `)`,
   * splitting at `,` at depth 0, and leaves the cursor after the `)`; null
   * (cursor unchanged) when the text ends first.
   */
  arguments(): Segment[] | null {
    const args: Segment[] = [];
    let from = this.pos;
    const end = this.#scan(from, (i, depth) => {
      const c = this.text[i];
      if (depth !== 0 || (c !== "," && c !== ")")) return false;
      args.push(segment(this.text, from, i));
      from = i + 1;
      return c === ")";
    });
    if (end < 0) return null;
    this.pos = end + 1;
    // `set()` has no arguments rather than one blank one.
    return args.length === 1 && args[0].text === "" ? [] : args;
  }

  /**
   * Walks FEEL text from `start`, skipping strings and comments and tracking
   * bracket depth, until `stop(offset, depth)` holds; -1 when it never does.
   */
  #scan(start: number, stop: (offset: number, depth: number) => boolean): number {
    const t = this.text;
    let depth = 0;
    let i = start;
    while (i < t.length) {
      const c = t[i];
      if (c === '"') {
        i = this.#stringEnd(i);
        continue;
      }
      if (c === "/" && t[i + 1] === "/") {
        while (i < t.length && t[i] !== "\n" && t[i] !== "\r") i++;
        continue;
      }
      if (c === "/" && t[i + 1] === "*") {
        i = this.#commentEnd(i);
        continue;
      }
      if (stop(i, depth)) return i;
      // One counter for every bracket kind: FEEL ranges mix them, as in `(1..10]`.
      if (OPENERS.includes(c)) depth++;
      else if (CLOSERS.includes(c)) depth--;
      i++;
    }
    return -1;
  }

  #isThen(i: number): boolean {
    const t = this.text;
    return t.startsWith("then", i) && !NAME_CHAR.test(t[i - 1] ?? " ") &&
      !NAME_CHAR.test(t[i + 4] ?? " ");
  }

  #stringEnd(start: number): number {
    const t = this.text;
    let i = start + 1;
    while (i < t.length && t[i] !== '"') i += t[i] === "\\" ? 2 : 1;
    if (i >= t.length) {
      throw new SrlSyntaxError("unterminated string: a closing '\"' is missing", start);
    }
    return i + 1;
  }

  #commentEnd(start: number): number {
    const close = this.text.indexOf("*/", start + 2);
    if (close < 0) {
      throw new SrlSyntaxError("unterminated comment: '/*' has no closing '*/'", start);
    }
    return close + 2;
  }
}

function segment(text: string, start: number, end: number): Segment {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  return { text: raw.trim(), offset: start + (raw.trim() === "" ? 0 : lead) };
}
