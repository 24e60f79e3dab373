import assert from "node:assert/strict";
import {
  compileXsdRegex,
  RegexError,
  regexMatches,
  regexReplace,
  regexSplit,
  type XsdRegex,
} from "./regex.ts";

function rx(pattern: string, flags = ""): XsdRegex {
  const r = compileXsdRegex(pattern, flags);
  if (r instanceof RegexError) throw r;
  return r;
}
const matches = (input: string, pattern: string, flags = "") =>
  regexMatches(input, rx(pattern, flags));
const invalid = (pattern: string, flags = "") =>
  compileXsdRegex(pattern, flags) instanceof RegexError;

Deno.test("XSD character classes translate to their Unicode meaning", () => {
  assert.equal(matches("\u0663", "^\\d$"), true); // Arabic-Indic digit three
  assert.equal(matches("\u00a0", "^\\s$"), false); // XSD \s is only space, tab, CR, LF
  assert.equal(matches("é", "^\\w$"), true);
  assert.equal(matches("-", "^\\w$"), false);
  assert.equal(matches("a:b", "^\\i\\c*$"), true);
  assert.equal(matches("1a", "^\\i"), false);
  assert.equal(matches("hello", "^\\p{IsBasicLatin}+$"), true);
  assert.equal(matches("héllo", "^\\p{IsBasicLatin}+$"), false);
  assert.equal(matches("Ab", "^\\p{Lu}\\p{Ll}$"), true);
  assert.equal(matches("\u{1F40E}", "^.$"), true);
  assert.equal(matches("b", "[a-z-[aeiou]]"), true);
  assert.equal(matches("e", "[a-z-[aeiou]]"), false);
  assert.equal(matches("x", "[^a-z-[x]]"), false);
  assert.equal(matches("-", "[a-]"), true);
  assert.equal(matches("5", "[0-9-.]"), true);
});

Deno.test("flags s m i x q", () => {
  assert.equal(matches("a\nb", "a.b"), false);
  assert.equal(matches("a\nb", "a.b", "s"), true);
  assert.equal(matches("a\u2028b", "a.b"), true); // only \n and \r are excluded from '.'
  assert.equal(matches("x\nab\ny", "^ab$"), false);
  assert.equal(matches("x\nab\ny", "^ab$", "m"), true);
  assert.equal(matches("x\rab", "^ab", "m"), false); // lines end at \n only
  assert.equal(matches("ABC", "abc", "i"), true);
  assert.equal(matches("\u212a", "k", "i"), true);
  assert.equal(matches("helloworld", "hello world", "x"), true);
  assert.equal(matches("hello world", "hello[ ]world", "x"), true);
  assert.equal(matches("a+b", "a+b", "q"), true);
  assert.equal(matches("aab", "a+b", "q"), false);
  assert.equal(invalid("a", "g"), true);
  assert.equal(invalid("a", " "), true);
});

Deno.test("groups, back-references, reluctant quantifiers", () => {
  assert.equal(matches("abab", "^(ab)\\1$"), true);
  assert.equal(matches("aA", "(a)\\1", "i"), true);
  assert.equal(matches("abcdefghijkk", "^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)\\11$"), true);
  assert.equal(matches("xx1", "^(x)\\11$"), true); // \11 names no group: \1 then "1"
  assert.equal(regexReplace("aaa", rx("a+?"), "x"), "xxx");
  assert.equal(matches("abc", "(?:ab)c"), true);
});

Deno.test("invalid patterns are refused rather than read as JS", () => {
  for (
    const bad of [
      "(?=a)",
      "(?i)a",
      "\\3",
      "(a)\\2",
      "(a\\1)",
      "[\\1]",
      "a{2,1}",
      "*a",
      "a]",
      "a}",
      "[a",
      "[]",
      "\\x41",
      "\\p{IsNoSuchBlock}",
      "\\p{Xx}",
      "[z-a]",
      "\\",
    ]
  ) assert.equal(invalid(bad), true, bad);
});

Deno.test("replace and split follow fn:replace and fn:tokenize", () => {
  assert.equal(regexReplace("abcd", rx("(ab)|(a)"), "[1=$1][2=$2]"), "[1=ab][2=]cd");
  assert.equal(regexReplace("abc", rx("(b)"), "$10"), "ab0c");
  assert.equal(regexReplace("abc", rx("b"), "\\\\"), "a\\c");
  assert.ok(regexReplace("abc", rx("x*"), "y") instanceof RegexError);
  assert.ok(regexReplace("abc", rx("b"), "\\n") instanceof RegexError);
  assert.deepEqual(regexSplit("a, b,c", rx(",\\s*")), ["a", "b", "c"]);
  assert.deepEqual(regexSplit("", rx(",")), []);
  assert.deepEqual(regexSplit(",a,", rx(",")), ["", "a", ""]);
  assert.ok(regexSplit("abc", rx("x?")) instanceof RegexError);
});
