/**
 * `range(from)`: reads a range literal such as `"[18..21)"` from a string.
 * Only literal endpoints are allowed: numbers, strings, `@"…"` temporals and
 * `date(…)`, `time(…)`, `date and time(…)`, `duration(…)` applied to a string
 * literal. An endpoint may be left out only on an open side (`"[2..)"` is
 * `>= 2`); both endpoints must be of one type and in ascending order.
 *
 * @module
 */
import { kindName, parseTemporalLiteral, valueCompare } from "../semantics.ts";
import { parseDate, parseDateTime, parseDuration, parseTime } from "../temporal.ts";
import {
  type EvalEnv,
  feelNumber,
  feelRange,
  type FeelValue,
  type RangeOperator,
} from "../values.ts";
import { builtin, describe, fail, param, T } from "./_define.ts";

const QUIET: EvalEnv = { warn() {} };
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/;
const CONVERSIONS: [string, (s: string) => FeelValue][] = [
  ["date and time", parseDateTime],
  ["date", parseDate],
  ["time", parseTime],
  ["duration", parseDuration],
];
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  n: "\n",
  r: "\r",
  t: "\t",
  "'": "'",
};

/** A cursor over the literal text; `undefined` from a reader means "not valid here". */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }

  take(s: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(s, this.pos)) return false;
    this.pos += s.length;
    return true;
  }

  /** A FEEL string literal's value. */
  string(): string | undefined {
    if (this.text[this.pos] !== '"') return undefined;
    let out = "";
    for (let i = this.pos + 1; i < this.text.length; i++) {
      const ch = this.text[i];
      if (ch === '"') {
        this.pos = i + 1;
        return out;
      }
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const next = this.text[++i];
      if (next === "u" || next === "U") {
        const len = next === "u" ? 4 : 6;
        const hex = this.text.slice(i + 1, i + 1 + len);
        const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : -1;
        if (code < 0 || code > 0x10ffff) return undefined;
        out += String.fromCodePoint(code);
        i += len;
      } else if (next in ESCAPES) out += ESCAPES[next];
      else return undefined;
    }
    return undefined;
  }

  /** One endpoint: null when absent, undefined when not a literal endpoint. */
  endpoint(): FeelValue | undefined {
    this.skipSpace();
    const rest = this.text.slice(this.pos);
    const num = NUMBER.exec(rest);
    if (num !== null) {
      this.pos += num[0].length;
      return feelNumber(num[0]) ?? undefined;
    }
    if (rest.startsWith('"')) return this.string();
    if (rest.startsWith("@")) {
      this.pos++;
      const s = this.string();
      if (s === undefined) return undefined;
      return parseTemporalLiteral(s, QUIET) ?? undefined;
    }
    for (const [name, parse] of CONVERSIONS) {
      if (!rest.startsWith(name)) continue;
      this.pos += name.length;
      if (!this.take("(")) return undefined;
      this.skipSpace();
      const s = this.string();
      if (s === undefined || !this.take(")")) return undefined;
      return parse(s) ?? undefined;
    }
    return null;
  }
}

function operator(start: FeelValue, startIncluded: boolean, endIncluded: boolean): RangeOperator {
  if (start === null) return endIncluded ? "<=" : "<";
  return startIncluded ? ">=" : ">";
}

/** Parses a range literal, or returns the reason it is not one. */
export function parseRangeLiteral(text: string, env: EvalEnv): FeelValue | string {
  const r = new Reader(text);
  let startIncluded: boolean;
  if (r.take("[")) startIncluded = true;
  else if (r.take("(") || r.take("]")) startIncluded = false;
  else return "a range literal starts with '[', '(' or ']'";
  const start = r.endpoint();
  if (start === undefined || !r.take("..")) return "invalid start endpoint";
  const end = r.endpoint();
  if (end === undefined) return "invalid end endpoint";
  let endIncluded: boolean;
  if (r.take("]")) endIncluded = true;
  else if (r.take(")") || r.take("[")) endIncluded = false;
  else return "a range literal ends with ']', ')' or '['";
  r.skipSpace();
  if (r.pos !== text.length) return "unexpected text after the range";
  if (start === null && end === null) return "a range needs at least one endpoint";
  if (start === null || end === null) {
    if ((start === null && startIncluded) || (end === null && endIncluded)) {
      return "an omitted endpoint must be on an open side";
    }
    return feelRange(
      start,
      startIncluded,
      end,
      endIncluded,
      operator(start, startIncluded, endIncluded),
    );
  }
  if (kindName(start) !== kindName(end)) {
    return `endpoints ${describe(start)} and ${describe(end)} differ in type`;
  }
  const c = valueCompare(start, end, env);
  if (c === null) return `${describe(start)} endpoints are not ordered`;
  if (c > 0) return "the start endpoint is after the end endpoint";
  return feelRange(start, startIncluded, end, endIncluded);
}

const range = builtin("range", [[param("from", T.string)]], (args, env) => {
  const from = args[0];
  if (typeof from !== "string") {
    return fail(env, "range", `from must be a string, got ${describe(from)}`);
  }
  const r = parseRangeLiteral(from, env);
  return typeof r === "string" ? fail(env, "range", r) : r;
});

/** The `range` built-in. */
export const rangeLiteralBuiltins = [range];
