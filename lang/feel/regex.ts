/**
 * XML Schema / XPath 2.0 regular expressions for FEEL's `matches`, `replace`
 * and `split`. A pattern is parsed with the XPath grammar (flags `s m i x q`,
 * reluctant quantifiers, back-references, `^`/`$` anchors, class
 * subtraction `[a-z-[aeiou]]`, `\p{IsBlock}` blocks, `\i`/`\c` name
 * classes) and translated into an equivalent JS RegExp using the `v` flag,
 * which provides the class set operations and Unicode properties needed.
 * Every construct is translated explicitly (`\d` is any Unicode digit, `.`
 * excludes only `\n` and `\r`, …), so JS-only syntax is never accepted.
 *
 * @module
 */

/** A translated pattern. */
export interface XsdRegex {
  /** Non-global RegExp for testing. */
  readonly re: RegExp;
  /** Global RegExp for replacing and splitting; reset `lastIndex` before use. */
  readonly global: RegExp;
  /** Number of capturing groups. */
  readonly groups: number;
}

/** A pattern error, with the reason. */
export class RegexError extends Error {}

const ALLOWED_FLAGS = /^[smixq]*$/;

/** Unicode blocks as named by XML Schema (`\p{IsBasicLatin}`), code point ranges. */
const BLOCKS: Record<string, [number, number][]> = {
  BasicLatin: [[0x0000, 0x007f]],
  "Latin-1Supplement": [[0x0080, 0x00ff]],
  "LatinExtended-A": [[0x0100, 0x017f]],
  "LatinExtended-B": [[0x0180, 0x024f]],
  IPAExtensions: [[0x0250, 0x02af]],
  SpacingModifierLetters: [[0x02b0, 0x02ff]],
  CombiningDiacriticalMarks: [[0x0300, 0x036f]],
  Greek: [[0x0370, 0x03ff]],
  Cyrillic: [[0x0400, 0x04ff]],
  Armenian: [[0x0530, 0x058f]],
  Hebrew: [[0x0590, 0x05ff]],
  Arabic: [[0x0600, 0x06ff]],
  Syriac: [[0x0700, 0x074f]],
  Thaana: [[0x0780, 0x07bf]],
  Devanagari: [[0x0900, 0x097f]],
  Bengali: [[0x0980, 0x09ff]],
  Gurmukhi: [[0x0a00, 0x0a7f]],
  Gujarati: [[0x0a80, 0x0aff]],
  Oriya: [[0x0b00, 0x0b7f]],
  Tamil: [[0x0b80, 0x0bff]],
  Telugu: [[0x0c00, 0x0c7f]],
  Kannada: [[0x0c80, 0x0cff]],
  Malayalam: [[0x0d00, 0x0d7f]],
  Sinhala: [[0x0d80, 0x0dff]],
  Thai: [[0x0e00, 0x0e7f]],
  Lao: [[0x0e80, 0x0eff]],
  Tibetan: [[0x0f00, 0x0fff]],
  Myanmar: [[0x1000, 0x109f]],
  Georgian: [[0x10a0, 0x10ff]],
  HangulJamo: [[0x1100, 0x11ff]],
  Ethiopic: [[0x1200, 0x137f]],
  Cherokee: [[0x13a0, 0x13ff]],
  UnifiedCanadianAboriginalSyllabics: [[0x1400, 0x167f]],
  Ogham: [[0x1680, 0x169f]],
  Runic: [[0x16a0, 0x16ff]],
  Khmer: [[0x1780, 0x17ff]],
  Mongolian: [[0x1800, 0x18af]],
  LatinExtendedAdditional: [[0x1e00, 0x1eff]],
  GreekExtended: [[0x1f00, 0x1fff]],
  GeneralPunctuation: [[0x2000, 0x206f]],
  SuperscriptsandSubscripts: [[0x2070, 0x209f]],
  CurrencySymbols: [[0x20a0, 0x20cf]],
  CombiningMarksforSymbols: [[0x20d0, 0x20ff]],
  LetterlikeSymbols: [[0x2100, 0x214f]],
  NumberForms: [[0x2150, 0x218f]],
  Arrows: [[0x2190, 0x21ff]],
  MathematicalOperators: [[0x2200, 0x22ff]],
  MiscellaneousTechnical: [[0x2300, 0x23ff]],
  ControlPictures: [[0x2400, 0x243f]],
  OpticalCharacterRecognition: [[0x2440, 0x245f]],
  EnclosedAlphanumerics: [[0x2460, 0x24ff]],
  BoxDrawing: [[0x2500, 0x257f]],
  BlockElements: [[0x2580, 0x259f]],
  GeometricShapes: [[0x25a0, 0x25ff]],
  MiscellaneousSymbols: [[0x2600, 0x26ff]],
  Dingbats: [[0x2700, 0x27bf]],
  BraillePatterns: [[0x2800, 0x28ff]],
  CJKRadicalsSupplement: [[0x2e80, 0x2eff]],
  KangxiRadicals: [[0x2f00, 0x2fdf]],
  IdeographicDescriptionCharacters: [[0x2ff0, 0x2fff]],
  CJKSymbolsandPunctuation: [[0x3000, 0x303f]],
  Hiragana: [[0x3040, 0x309f]],
  Katakana: [[0x30a0, 0x30ff]],
  Bopomofo: [[0x3100, 0x312f]],
  HangulCompatibilityJamo: [[0x3130, 0x318f]],
  Kanbun: [[0x3190, 0x319f]],
  BopomofoExtended: [[0x31a0, 0x31bf]],
  EnclosedCJKLettersandMonths: [[0x3200, 0x32ff]],
  CJKCompatibility: [[0x3300, 0x33ff]],
  CJKUnifiedIdeographsExtensionA: [[0x3400, 0x4db5]],
  CJKUnifiedIdeographs: [[0x4e00, 0x9fff]],
  YiSyllables: [[0xa000, 0xa48f]],
  YiRadicals: [[0xa490, 0xa4cf]],
  HangulSyllables: [[0xac00, 0xd7a3]],
  HighSurrogates: [[0xd800, 0xdb7f]],
  HighPrivateUseSurrogates: [[0xdb80, 0xdbff]],
  LowSurrogates: [[0xdc00, 0xdfff]],
  PrivateUse: [[0xe000, 0xf8ff], [0xf0000, 0xffffd], [0x100000, 0x10fffd]],
  CJKCompatibilityIdeographs: [[0xf900, 0xfaff]],
  AlphabeticPresentationForms: [[0xfb00, 0xfb4f]],
  "ArabicPresentationForms-A": [[0xfb50, 0xfdff]],
  CombiningHalfMarks: [[0xfe20, 0xfe2f]],
  CJKCompatibilityForms: [[0xfe30, 0xfe4f]],
  SmallFormVariants: [[0xfe50, 0xfe6f]],
  "ArabicPresentationForms-B": [[0xfe70, 0xfefe]],
  Specials: [[0xfeff, 0xfeff], [0xfff0, 0xfffd]],
  HalfwidthandFullwidthForms: [[0xff00, 0xffef]],
  OldItalic: [[0x10300, 0x1032f]],
  Gothic: [[0x10330, 0x1034f]],
  Deseret: [[0x10400, 0x1044f]],
  ByzantineMusicalSymbols: [[0x1d000, 0x1d0ff]],
  MusicalSymbols: [[0x1d100, 0x1d1ff]],
  MathematicalAlphanumericSymbols: [[0x1d400, 0x1d7ff]],
  CJKUnifiedIdeographsExtensionB: [[0x20000, 0x2a6d6]],
  CJKCompatibilityIdeographsSupplement: [[0x2f800, 0x2fa1f]],
  Tags: [[0xe0000, 0xe007f]],
};

/** General categories XML Schema allows in `\p{…}`. */
const CATEGORIES = new Set(
  "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po Z Zs Zl Zp S Sm Sc Sk So C Cc Cf Co Cn"
    .split(" "),
);

/** XML 1.0 (fifth edition) NameStartChar, for `\i`. */
const NAME_START: [number, number][] = [
  [0x3a, 0x3a],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x2ff],
  [0x370, 0x37d],
  [0x37f, 0x1fff],
  [0x200c, 0x200d],
  [0x2070, 0x218f],
  [0x2c00, 0x2fef],
  [0x3001, 0xd7ff],
  [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd],
  [0x10000, 0xeffff],
];

/** XML 1.0 NameChar additions to NameStartChar, for `\c`. */
const NAME_EXTRA: [number, number][] = [
  [0x2d, 0x2e],
  [0x30, 0x39],
  [0xb7, 0xb7],
  [0x300, 0x36f],
  [0x203f, 0x2040],
];

/** One code point as a JS `v`-mode escape, safe both inside and outside classes. */
function cp(c: number): string {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
    ? String.fromCodePoint(c)
    : `\\u{${c.toString(16)}}`;
}

function rangesClass(ranges: [number, number][], negated: boolean): string {
  const body = ranges.map(([a, b]) => (a === b ? cp(a) : `${cp(a)}-${cp(b)}`)).join("");
  return `[${negated ? "^" : ""}${body}]`;
}

const SPACE_CLASS = "[\\u{9}\\u{a}\\u{d}\\u{20}]";
const SINGLE_ESCAPES: Record<string, number> = {
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  "\\": 0x5c,
  "|": 0x7c,
  ".": 0x2e,
  "-": 0x2d,
  "^": 0x5e,
  "?": 0x3f,
  "*": 0x2a,
  "+": 0x2b,
  "{": 0x7b,
  "}": 0x7d,
  "(": 0x28,
  ")": 0x29,
  "[": 0x5b,
  "]": 0x5d,
  "$": 0x24,
};

/** Removes the whitespace the `x` flag ignores: everywhere except inside character classes. */
function stripWhitespace(pattern: string): string {
  let out = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      // The escaped character is the next one left after whitespace removal.
      out += ch;
      while (i + 1 < pattern.length && " \t\n\r".includes(pattern[i + 1])) i++;
      if (i + 1 < pattern.length) out += pattern[++i];
      continue;
    }
    if (ch === "[") depth++;
    else if (ch === "]" && depth > 0) depth--;
    if (depth === 0 && (ch === " " || ch === "\t" || ch === "\n" || ch === "\r")) continue;
    out += ch;
  }
  return out;
}

/** Recursive-descent translator from the XPath regex grammar to JS `v`-mode source. */
class Translator {
  private pos = 0;
  private readonly chars: number[];
  /** Groups opened so far (their numbers are assigned in opening order). */
  groups = 0;
  /** Groups whose closing parenthesis has been seen (back-references need a closed group). */
  private readonly closed = new Set<number>();

  constructor(
    pattern: string,
    private readonly dotAll: boolean,
    private readonly multiline: boolean,
  ) {
    this.chars = Array.from(pattern, (c) => c.codePointAt(0)!);
  }

  translate(): string {
    const out = this.regExp();
    if (this.pos < this.chars.length) this.fail(`unexpected '${this.char()}'`);
    return out;
  }

  private fail(reason: string): never {
    throw new RegexError(`invalid regular expression: ${reason} at position ${this.pos}`);
  }

  private peek(offset = 0): number | undefined {
    return this.chars[this.pos + offset];
  }

  private char(): string {
    const c = this.peek();
    return c === undefined ? "end of pattern" : String.fromCodePoint(c);
  }

  private eat(c: string): boolean {
    if (this.peek() === c.codePointAt(0)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private regExp(): string {
    let out = this.branch();
    while (this.eat("|")) out += "|" + this.branch();
    return out;
  }

  private branch(): string {
    let out = "";
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29) return out; // end, '|', ')'
      out += this.piece();
    }
  }

  private piece(): string {
    const atom = this.atom();
    if (atom.anchor) return atom.text;
    return atom.text + this.quantifier();
  }

  private quantifier(): string {
    let q = "";
    const c = this.peek();
    if (c === 0x3f || c === 0x2a || c === 0x2b) { // ? * +
      this.pos++;
      q = String.fromCodePoint(c);
    } else if (c === 0x7b) { // {
      this.pos++;
      const min = this.digits();
      if (min === null) this.fail("quantifier needs a minimum");
      let max: number | null = min;
      let open = false;
      if (this.eat(",")) {
        max = this.digits();
        open = max === null;
      }
      if (!this.eat("}")) this.fail("unterminated quantifier");
      if (max !== null && max < min) this.fail("quantifier maximum below minimum");
      q = open ? `{${min},}` : max === min ? `{${min}}` : `{${min},${max}}`;
    } else return "";
    if (this.eat("?")) q += "?";
    return q;
  }

  private digits(): number | null {
    const start = this.pos;
    while (this.peek() !== undefined && this.peek()! >= 0x30 && this.peek()! <= 0x39) this.pos++;
    if (this.pos === start) return null;
    return Number(String.fromCodePoint(...this.chars.slice(start, this.pos)));
  }

  private atom(): { text: string; anchor?: boolean } {
    const c = this.peek()!;
    switch (c) {
      case 0x28: { // (
        this.pos++;
        let capture = true;
        if (this.peek() === 0x3f) { // ?
          if (this.peek(1) !== 0x3a) this.fail("only (?: groups are allowed");
          this.pos += 2;
          capture = false;
        }
        const n = capture ? ++this.groups : 0;
        const inner = this.regExp();
        if (!this.eat(")")) this.fail("missing ')'");
        if (capture) this.closed.add(n);
        return { text: capture ? `(${inner})` : `(?:${inner})` };
      }
      case 0x5b: // [
        this.pos++;
        return { text: this.classExpr() };
      case 0x5c: // backslash
        this.pos++;
        return { text: this.escapeOutsideClass() };
      case 0x2e: // .
        this.pos++;
        return { text: this.dotAll ? "[\\u{0}-\\u{10ffff}]" : "[^\\u{a}\\u{d}]" };
      case 0x5e: // ^
        this.pos++;
        return { text: this.multiline ? "(?<![^\\u{a}])" : "^", anchor: true };
      case 0x24: // $
        this.pos++;
        return { text: this.multiline ? "(?![^\\u{a}])" : "$", anchor: true };
      case 0x3f:
      case 0x2a:
      case 0x2b:
      case 0x7b:
        return this.fail(`quantifier '${this.char()}' has nothing to repeat`);
      case 0x7d:
      case 0x5d:
      case 0x29:
        return this.fail(`unescaped '${this.char()}'`);
    }
    this.pos++;
    return { text: cp(c) };
  }

  private escapeOutsideClass(): string {
    const c = this.peek();
    if (c === undefined) this.fail("pattern ends with '\\'");
    if (c >= 0x31 && c <= 0x39) return this.backReference();
    const multi = this.multiCharEscape();
    if (multi !== null) return multi;
    return cp(this.singleCharEscape());
  }

  private backReference(): string {
    let n = this.peek()! - 0x30;
    this.pos++;
    // Further digits belong to the number only while it still names a closed group.
    for (;;) {
      const d = this.peek();
      if (d === undefined || d < 0x30 || d > 0x39) break;
      const m = n * 10 + (d - 0x30);
      if (!this.closed.has(m)) break;
      n = m;
      this.pos++;
    }
    if (!this.closed.has(n)) this.fail(`back-reference \\${n} to a group not closed before it`);
    return `(?:\\${n})`;
  }

  private singleCharEscape(): number {
    const ch = this.char();
    const code = SINGLE_ESCAPES[ch];
    if (code === undefined) this.fail(`unknown escape '\\${ch}'`);
    this.pos++;
    return code;
  }

  /** `\s \S \i \I \c \C \d \D \w \W \p{…} \P{…}` as JS class syntax, or null for other escapes. */
  private multiCharEscape(): string | null {
    const ch = this.char();
    switch (ch) {
      case "s":
      case "S":
        this.pos++;
        return ch === "s" ? SPACE_CLASS : "[^\\u{9}\\u{a}\\u{d}\\u{20}]";
      case "i":
      case "I":
        this.pos++;
        return rangesClass(NAME_START, ch === "I");
      case "c":
      case "C":
        this.pos++;
        return rangesClass([...NAME_START, ...NAME_EXTRA], ch === "C");
      case "d":
        this.pos++;
        return "\\p{Nd}";
      case "D":
        this.pos++;
        return "\\P{Nd}";
      case "w":
        this.pos++;
        return "[^\\p{P}\\p{Z}\\p{C}]";
      case "W":
        this.pos++;
        return "[\\p{P}\\p{Z}\\p{C}]";
      case "p":
      case "P":
        this.pos++;
        return this.property(ch === "P");
    }
    return null;
  }

  private property(negated: boolean): string {
    if (!this.eat("{")) this.fail("expected '{' after \\p");
    const start = this.pos;
    while (this.peek() !== undefined && this.peek() !== 0x7d) this.pos++;
    if (!this.eat("}")) this.fail("unterminated \\p{");
    const name = String.fromCodePoint(...this.chars.slice(start, this.pos - 1));
    if (name.startsWith("Is")) {
      const block = BLOCKS[name.slice(2)];
      if (block === undefined) this.fail(`unknown block '${name}'`);
      return rangesClass(block, negated);
    }
    if (!CATEGORIES.has(name)) this.fail(`unknown category '${name}'`);
    return `\\${negated ? "P" : "p"}{${name}}`;
  }

  /** After '[': a (possibly negated) group, an optional `-[…]` subtraction, then ']'. */
  private classExpr(): string {
    const negated = this.eat("^");
    const items: string[] = [];
    let subtraction: string | null = null;
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("missing ']'");
      if (c === 0x5d && !first) break; // ]
      if (c === 0x2d && this.peek(1) === 0x5b) { // -[
        if (first) this.fail("class subtraction needs something to subtract from");
        this.pos += 2;
        subtraction = this.classExpr();
        if (this.peek() !== 0x5d) this.fail("class subtraction must end the class");
        break;
      }
      items.push(this.classItem(first));
      first = false;
    }
    this.pos++; // ]
    const base = `[${negated ? "^" : ""}${items.join("")}]`;
    return subtraction === null ? base : `[${base}--${subtraction}]`;
  }

  /** One member of a character group: a single character, a range `a-z`, or an escape. */
  private classItem(first: boolean): string {
    const c = this.peek()!;
    if (c === 0x5b) this.fail("unescaped '[' in a character class");
    if (c === 0x5c) {
      this.pos++;
      const d = this.peek();
      if (d !== undefined && d >= 0x30 && d <= 0x39) {
        this.fail("back-references are not allowed in a class");
      }
      const multi = this.multiCharEscape();
      if (multi !== null) return multi;
      return this.rangeFrom(this.singleCharEscape());
    }
    if (c === 0x5d && first) this.fail("empty character class");
    this.pos++;
    return this.rangeFrom(c);
  }

  private rangeFrom(low: number): string {
    // '-' makes a range unless it is last in the group or starts a subtraction.
    if (this.peek() !== 0x2d || this.peek(1) === 0x5d || this.peek(1) === 0x5b) return cp(low);
    if (this.peek(1) === undefined) this.fail("missing ']'");
    this.pos++;
    let high: number;
    if (this.peek() === 0x5c) {
      this.pos++;
      if (this.multiCharEscape() !== null) this.fail("a range cannot end with a class escape");
      high = this.singleCharEscape();
    } else high = this.chars[this.pos++];
    if (high < low) this.fail("character range out of order");
    return `${cp(low)}-${cp(high)}`;
  }
}

const cache = new Map<string, XsdRegex | RegexError>();
const CACHE_LIMIT = 512;

/** Escapes a pattern for the `q` flag: every character is literal. */
function literal(pattern: string): string {
  return Array.from(pattern, (c) => cp(c.codePointAt(0)!)).join("");
}

/**
 * Translates an XPath regular expression with its flags into JS RegExps, or
 * returns a {@link RegexError} explaining why the pattern or flags are
 * invalid. Results are cached per (pattern, flags).
 */
export function compileXsdRegex(pattern: string, flags: string): XsdRegex | RegexError {
  const key = `${flags}\u0000${pattern}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let result: XsdRegex | RegexError;
  if (!ALLOWED_FLAGS.test(flags)) {
    result = new RegexError(`invalid regular expression flags "${flags}"`);
  } else {
    try {
      let source: string;
      let groups = 0;
      if (flags.includes("q")) source = literal(pattern);
      else {
        const t = new Translator(
          flags.includes("x") ? stripWhitespace(pattern) : pattern,
          flags.includes("s"),
          flags.includes("m"),
        );
        source = t.translate();
        groups = t.groups;
      }
      const jsFlags = flags.includes("i") ? "vi" : "v";
      result = {
        re: new RegExp(source, jsFlags),
        global: new RegExp(source, jsFlags + "g"),
        groups,
      };
    } catch (e) {
      result = e instanceof RegexError ? e : new RegexError(`invalid regular expression: ${e}`);
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}

/** True when the pattern matches somewhere in the input (XPath `fn:matches`). */
export function regexMatches(input: string, rx: XsdRegex): boolean {
  return rx.re.test(input);
}

/** A replacement string split into literal text and group references. */
type Replacement = (string | number)[];

/**
 * Parses an XPath replacement string: `$N` inserts group N (digits are
 * consumed while the number still names a group; a group that does not exist
 * inserts nothing), `\$` and `\\` are literal; any other `$` or `\` is an error.
 */
function parseReplacement(text: string, groups: number): Replacement | RegexError {
  const parts: Replacement = [];
  let lit = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      const next = text[i + 1];
      if (next !== "\\" && next !== "$") {
        return new RegexError(`invalid '\\' in replacement "${text}"`);
      }
      lit += next;
      i++;
    } else if (ch === "$") {
      const d = text.charCodeAt(i + 1) - 0x30;
      if (!(d >= 0 && d <= 9)) return new RegexError(`invalid '$' in replacement "${text}"`);
      let n = d;
      i++;
      for (;;) {
        const e = text.charCodeAt(i + 1) - 0x30;
        if (!(e >= 0 && e <= 9) || n * 10 + e > groups) break;
        n = n * 10 + e;
        i++;
      }
      parts.push(lit, n);
      lit = "";
    } else lit += ch;
  }
  parts.push(lit);
  return parts;
}

/**
 * Replaces every non-overlapping match (XPath `fn:replace`). A pattern that
 * matches the empty string is an error, as in XPath.
 */
export function regexReplace(
  input: string,
  rx: XsdRegex,
  replacement: string,
): string | RegexError {
  if (rx.re.test("")) return new RegexError("the pattern matches the empty string");
  const parts = parseReplacement(replacement, rx.groups);
  if (parts instanceof RegexError) return parts;
  rx.global.lastIndex = 0;
  return input.replace(rx.global, (...m: unknown[]) => {
    let out = "";
    for (const p of parts) {
      if (typeof p === "string") out += p;
      else if (p <= rx.groups) out += (m[p] as string | undefined) ?? "";
    }
    return out;
  });
}

/**
 * Splits the input at every match (XPath `fn:tokenize`): captured groups are
 * not included, the empty input gives an empty list, and a pattern that
 * matches the empty string is an error.
 */
export function regexSplit(input: string, rx: XsdRegex): string[] | RegexError {
  if (rx.re.test("")) return new RegexError("the pattern matches the empty string");
  if (input === "") return [];
  const out: string[] = [];
  let last = 0;
  rx.global.lastIndex = 0;
  for (const m of input.matchAll(rx.global)) {
    out.push(input.slice(last, m.index));
    last = m.index + m[0].length;
  }
  out.push(input.slice(last));
  return out;
}
