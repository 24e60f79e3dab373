/**
 * String built-ins. Positions and lengths count Unicode code points, so an
 * astral character (one UTF-16 surrogate pair) is one character.
 *
 * @module
 */
import {
  compileXsdRegex,
  RegexError,
  regexMatches,
  regexReplace,
  regexSplit,
  type XsdRegex,
} from "../regex.ts";
import { type EvalEnv, FeelDecimal, type FeelValue } from "../values.ts";
import { builtin, describe, fail, intArg, optional, param, T } from "./_define.ts";

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code point count of a string. */
function codePointLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const substring = builtin(
  "substring",
  [[param("string", T.string), param("start position", T.number), optional("length", T.number)]],
  (args, env) => {
    const s = args[0];
    if (typeof s !== "string") {
      return fail(env, "substring", `string must be a string, got ${describe(s)}`);
    }
    const start = intArg(args[1], env, "substring", "start position");
    if (start === null) return null;
    const chars = SURROGATE.test(s) ? Array.from(s) : null;
    const len = chars === null ? s.length : chars.length;
    if (start === 0 || Math.abs(start) > len) {
      return fail(env, "substring", `start position ${start} is outside 1..${len} / -${len}..-1`);
    }
    const from = start > 0 ? start - 1 : len + start;
    let to = len;
    if (args[2] !== undefined) {
      const length = intArg(args[2], env, "substring", "length");
      if (length === null) return null;
      if (length < 1) return fail(env, "substring", "length must be at least 1");
      to = Math.min(len, from + length);
    }
    return chars === null ? s.slice(from, to) : chars.slice(from, to).join("");
  },
);

const stringLength = builtin("string length", [[param("string", T.string)]], (args, env) => {
  const s = args[0];
  if (typeof s !== "string") {
    return fail(env, "string length", `expects a string, got ${describe(s)}`);
  }
  return new FeelDecimal(codePointLength(s));
});

function unary(name: string, f: (s: string) => string) {
  return builtin(name, [[param("string", T.string)]], (args, env) => {
    const s = args[0];
    return typeof s === "string" ? f(s) : fail(env, name, `expects a string, got ${describe(s)}`);
  });
}

function binary(name: string, f: (s: string, match: string) => FeelValue) {
  return builtin(name, [[param("string", T.string), param("match", T.string)]], (args, env) => {
    const [s, m] = args;
    if (typeof s !== "string" || typeof m !== "string") {
      return fail(env, name, `expects two strings, got ${describe(s)} and ${describe(m)}`);
    }
    return f(s, m);
  });
}

function substringBefore(s: string, m: string): string {
  const i = s.indexOf(m);
  return i <= 0 ? "" : s.slice(0, i);
}

function substringAfter(s: string, m: string): string {
  const i = s.indexOf(m);
  return i < 0 ? "" : s.slice(i + m.length);
}

/** Compiles the pattern and flags of a regex built-in, or null with the reason. */
function regex(
  pattern: FeelValue | undefined,
  flags: FeelValue | undefined,
  env: EvalEnv,
  fn: string,
): XsdRegex | null {
  if (typeof pattern !== "string") {
    return fail(env, fn, `pattern must be a string, got ${describe(pattern)}`);
  }
  if (flags !== undefined && flags !== null && typeof flags !== "string") {
    return fail(env, fn, `flags must be a string, got ${describe(flags)}`);
  }
  const rx = compileXsdRegex(pattern, flags ?? "");
  return rx instanceof RegexError ? fail(env, fn, rx.message) : rx;
}

const matches = builtin(
  "matches",
  [[param("input", T.string), param("pattern", T.string), optional("flags")]],
  (args, env) => {
    const input = args[0];
    if (typeof input !== "string") {
      return fail(env, "matches", `input must be a string, got ${describe(input)}`);
    }
    const rx = regex(args[1], args[2], env, "matches");
    return rx === null ? null : regexMatches(input, rx);
  },
);

const replace = builtin(
  "replace",
  [[
    param("input", T.string),
    param("pattern", T.string),
    param("replacement", T.string),
    optional("flags"),
  ]],
  (args, env) => {
    const [input, , replacement] = args;
    if (typeof input !== "string" || typeof replacement !== "string") {
      return fail(env, "replace", "input and replacement must be strings");
    }
    const rx = regex(args[1], args[3], env, "replace");
    if (rx === null) return null;
    const r = regexReplace(input, rx, replacement);
    return r instanceof RegexError ? fail(env, "replace", r.message) : r;
  },
);

const split = builtin(
  "split",
  [[param("string", T.string), param("delimiter", T.string)]],
  (args, env) => {
    const s = args[0];
    if (typeof s !== "string") {
      return fail(env, "split", `string must be a string, got ${describe(s)}`);
    }
    const rx = regex(args[1], "", env, "split");
    if (rx === null) return null;
    const r = regexSplit(s, rx);
    return r instanceof RegexError ? fail(env, "split", r.message) : r;
  },
);

const stringJoin = builtin(
  "string join",
  [[param("list", T.list), optional("delimiter")]],
  (args, env) => {
    const list = args[0];
    const delimiter = args[1] ?? "";
    if (!Array.isArray(list)) {
      return fail(env, "string join", `list must be a list, got ${describe(list)}`);
    }
    if (typeof delimiter !== "string") {
      return fail(env, "string join", `delimiter must be a string, got ${describe(delimiter)}`);
    }
    const parts: string[] = [];
    for (const item of list) {
      if (item === null) continue;
      if (typeof item !== "string") {
        return fail(env, "string join", `list item is ${describe(item)}, not a string`);
      }
      parts.push(item);
    }
    return parts.join(delimiter);
  },
);

/** The string built-ins. */
export const stringBuiltins = [
  substring,
  stringLength,
  unary("upper case", (s) => s.toUpperCase()),
  unary("lower case", (s) => s.toLowerCase()),
  binary("substring before", substringBefore),
  binary("substring after", substringAfter),
  binary("contains", (s, m) => s.includes(m)),
  binary("starts with", (s, m) => s.startsWith(m)),
  binary("ends with", (s, m) => s.endsWith(m)),
  matches,
  replace,
  split,
  stringJoin,
];
