/**
 * FEEL tokenizer.
 *
 * The lexer knows nothing about names with spaces: it emits one token per
 * word, number, string or symbol and records whether whitespace preceded it.
 * The parser joins word tokens into multi-word names using the names in scope.
 *
 * @module
 */
import type { Span } from "./ast.ts";

/** Token categories. Keywords are `name` tokens; the parser decides by context. */
export type TokenType = "number" | "string" | "name" | "symbol" | "eof";

/** One token with its position. */
export interface Token {
  readonly type: TokenType;
  /** Source text (for strings: the decoded value). */
  readonly text: string;
  /** 0-based offset of the first character. */
  readonly offset: number;
  /** 0-based offset just past the token. */
  readonly end: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column (UTF-16 code units). */
  readonly column: number;
  /** Whitespace or a comment separates this token from the previous one. */
  readonly spaced: boolean;
}

/** A syntax error at a position; caught by `parse` and turned into a diagnostic. */
export class FeelSyntaxError extends Error {
  /** Creates the error; `at` locates the offending text. */
  constructor(message: string, readonly at: Span) {
    super(message);
    this.name = "FeelSyntaxError";
  }
}

// Name characters as the FEEL grammar lists them (the XML name ranges).
const NAME_START =
  /[A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}]/u;
const NAME_PART =
  /[0-9\u00B7\u0300-\u036F\u203F-\u2040A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}]/u;

// Longest first so `..` wins over `.`, `**` over `*`, `<=` over `<`.
const SYMBOLS = [
  "..",
  "**",
  "<=",
  ">=",
  "!=",
  "=",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ".",
  "@",
  "'",
];

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

const WHITESPACE = /\s/u;

/** Maps offsets to 1-based line/column. */
export class LineMap {
  readonly #starts: number[] = [0];

  /** Indexes the line starts of `text`. */
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\n") this.#starts.push(i + 1);
      else if (c === "\r" && text[i + 1] !== "\n") this.#starts.push(i + 1);
    }
  }

  /** The span from `offset` to `end`. */
  span(offset: number, end: number): Span {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, end, line: lo + 1, column: offset - this.#starts[lo] + 1 };
  }
}

/** Splits FEEL text into tokens; throws {@link FeelSyntaxError} on malformed input. */
export function tokenize(text: string, lines: LineMap = new LineMap(text)): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = false;
  const push = (type: TokenType, value: string, start: number) => {
    const s = lines.span(start, i);
    tokens.push({
      type,
      text: value,
      offset: start,
      end: i,
      line: s.line,
      column: s.column,
      spaced,
    });
    spaced = false;
  };
  const fail = (message: string, start: number, end = start + 1): never => {
    throw new FeelSyntaxError(message, lines.span(start, end));
  };
  while (i < text.length) {
    const c = text[i];
    if (WHITESPACE.test(c)) {
      i++;
      spaced = true;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
      spaced = true;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      if (close < 0) fail("unterminated comment: '/*' has no closing '*/'", i, i + 2);
      i = close + 2;
      spaced = true;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === "." && isDigit(text[i + 1]) && text[i - 1] !== ".")) {
      while (isDigit(text[i])) i++;
      if (text[i] === "." && isDigit(text[i + 1])) {
        i++;
        while (isDigit(text[i])) i++;
      }
      // DMN 1.5 numbers may carry an exponent: 1.23e4, 1E-4.
      const sign = text[i + 1] === "+" || text[i + 1] === "-" ? 1 : 0;
      if ((text[i] === "e" || text[i] === "E") && isDigit(text[i + 1 + sign])) {
        i += 1 + sign;
        while (isDigit(text[i])) i++;
      }
      push("number", text.slice(start, i), start);
      continue;
    }
    if (c === '"') {
      push("string", readString(text, start, fail, (end) => (i = end)), start);
      continue;
    }
    if (c === "?") {
      i++;
      push("name", "?", start);
      continue;
    }
    const cp = String.fromCodePoint(text.codePointAt(i)!);
    if (NAME_START.test(cp)) {
      i += cp.length;
      while (i < text.length) {
        const next = String.fromCodePoint(text.codePointAt(i)!);
        if (!NAME_PART.test(next)) break;
        i += next.length;
      }
      push("name", text.slice(start, i), start);
      continue;
    }
    const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
    if (symbol === undefined) fail(`unexpected character '${cp}'`, start, start + cp.length);
    i += symbol!.length;
    push("symbol", symbol!, start);
  }
  const s = lines.span(i, i);
  tokens.push({ type: "eof", text: "", offset: i, end: i, line: s.line, column: s.column, spaced });
  return tokens;
}

/** Decodes the string literal opening at `start`; reports its end through `setEnd`. */
function readString(
  text: string,
  start: number,
  fail: (message: string, start: number, end?: number) => never,
  setEnd: (end: number) => void,
): string {
  let out = "";
  let i = start + 1;
  while (true) {
    if (i >= text.length) fail("unterminated string literal", start, i);
    const c = text[i];
    if (c === '"') break;
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = text[i + 1];
    switch (e) {
      case '"':
      case "'":
      case "\\":
        out += e;
        i += 2;
        break;
      case "n":
        out += "\n";
        i += 2;
        break;
      case "r":
        out += "\r";
        i += 2;
        break;
      case "t":
        out += "\t";
        i += 2;
        break;
      case "u":
      case "U": {
        // \uXXXX appends one UTF-16 unit, so an escaped surrogate pair joins
        // into one code point by itself; \UXXXXXX names a whole code point.
        const width = e === "u" ? 4 : 6;
        const hex = text.slice(i + 2, i + 2 + width);
        if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) {
          fail(`'\\${e}' must be followed by ${width} hexadecimal digits`, i, i + 2);
        }
        const code = parseInt(hex, 16);
        if (code > 0x10FFFF) fail(`'\\U${hex}' is beyond the last Unicode code point`, i, i + 8);
        out += e === "u" ? String.fromCharCode(code) : String.fromCodePoint(code);
        i += 2 + width;
        break;
      }
      default:
        // Not an escape: the grammar reads a lone backslash as itself.
        out += c;
        i++;
    }
  }
  setEnd(i + 1);
  return out;
}
