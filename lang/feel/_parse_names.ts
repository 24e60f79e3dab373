/**
 * Matching multi-word FEEL names against the token stream.
 *
 * FEEL names may contain spaces, keywords and a few operator characters
 * (`date and time`, `Monthly Salary`, `a-b`), so a name can only be told
 * apart from an operator sequence by knowing which names are in scope. A
 * {@link NameTable} holds the multi-token names of one scope, pre-split into
 * the tokens the lexer would produce for them.
 *
 * @module
 */
import { FeelSyntaxError, type Token, tokenize } from "./lexer.ts";

/** Words that end a name unless a known name says otherwise. */
export const RESERVED: ReadonlySet<string> = new Set([
  "and",
  "or",
  "if",
  "then",
  "else",
  "for",
  "in",
  "return",
  "some",
  "every",
  "satisfies",
  "between",
  "instance",
  "of",
  "function",
  "external",
  "true",
  "false",
  "null",
]);

/** Symbols the grammar allows inside a name. */
export const NAME_SYMBOLS: ReadonlySet<string> = new Set([".", "/", "-", "'", "+", "*"]);

/** A known name split into tokens. */
interface Shape {
  readonly name: string;
  readonly words: readonly string[];
  readonly spaced: readonly boolean[];
}

/** A match of a known name at a token position. */
export interface NameMatch {
  /** How many tokens the name spans. */
  readonly length: number;
  /** The name as declared (whitespace normalised). */
  readonly name: string;
}

/** Multi-token names of one scope, indexed by their first token. */
export class NameTable {
  readonly #byFirst = new Map<string, Shape[]>();

  /** Builds a table from `names`. */
  constructor(names: Iterable<string> = []) {
    for (const n of names) this.add(n);
  }

  /** Declares `name`; single-token names need no entry because the lexer keeps them whole. */
  add(name: string): void {
    let tokens: Token[];
    try {
      tokens = tokenize(name);
    } catch (e) {
      if (e instanceof FeelSyntaxError) return; // cannot appear in an expression anyway
      throw e;
    }
    tokens.pop(); // eof
    if (tokens.length < 2) return;
    if (tokens.some((t) => !isNamePart(t))) return;
    const shape: Shape = {
      name: tokens.map((t, i) => (i > 0 && t.spaced ? " " : "") + t.text).join(""),
      words: tokens.map((t) => t.text),
      spaced: tokens.map((t) => t.spaced),
    };
    const list = this.#byFirst.get(shape.words[0]);
    if (list === undefined) this.#byFirst.set(shape.words[0], [shape]);
    else list.push(shape);
  }

  /** The longest name of this table starting at `tokens[at]`, if longer than `minLength`. */
  match(tokens: readonly Token[], at: number, minLength: number): NameMatch | null {
    const shapes = this.#byFirst.get(tokens[at].text);
    if (shapes === undefined) return null;
    let best: NameMatch | null = null;
    for (const s of shapes) {
      if (s.words.length <= (best?.length ?? minLength)) continue;
      let ok = tokens[at].type === "name";
      for (let k = 1; ok && k < s.words.length; k++) {
        const t = tokens[at + k];
        ok = t !== undefined && isNamePart(t) && t.text === s.words[k] && t.spaced === s.spaced[k];
      }
      if (ok) best = { length: s.words.length, name: s.name };
    }
    return best;
  }
}

/** The longest multi-token name from any of `tables` starting at `tokens[at]`. */
export function longestMatch(
  tables: readonly NameTable[],
  tokens: readonly Token[],
  at: number,
): NameMatch | null {
  let best: NameMatch | null = null;
  for (const table of tables) {
    const m = table.match(tokens, at, best === null ? 1 : best.length);
    if (m !== null) best = m;
  }
  return best;
}

/** Whether a token may be part of a multi-token name. */
export function isNamePart(t: Token): boolean {
  return t.type === "name" || t.type === "number" ||
    (t.type === "symbol" && NAME_SYMBOLS.has(t.text));
}

/**
 * How many tokens after `at` can be joined into the name without any known
 * name: plain words separated by whitespace, integers, and apostrophes. Two
 * such tokens in a row are never valid FEEL otherwise, so joining them is safe.
 */
export function joinableWords(tokens: readonly Token[], at: number): number {
  let n = 0;
  let afterApostrophe = tokens[at - 1]?.text === "'";
  for (;;) {
    const t = tokens[at + n];
    const word = t.type === "name" && t.text !== "?" && !RESERVED.has(t.text) &&
      (t.spaced || afterApostrophe);
    const integer = t.type === "number" && t.spaced && /^[0-9]+$/.test(t.text);
    const apostrophe = t.type === "symbol" && t.text === "'";
    if (!word && !integer && !apostrophe) return n;
    afterApostrophe = apostrophe;
    n++;
  }
}

/** Renders tokens `from`..`to` (exclusive) as one name with single spaces. */
export function joinTokens(tokens: readonly Token[], from: number, to: number): string {
  let s = "";
  for (let i = from; i < to; i++) s += (i > from && tokens[i].spaced ? " " : "") + tokens[i].text;
  return s;
}
