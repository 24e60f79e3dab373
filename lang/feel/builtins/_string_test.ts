import assert from "node:assert/strict";
import { show, showNamed } from "./_testing.ts";

const HORSE = "\u{1F40E}";

Deno.test("substring counts code points and accepts negative positions", () => {
  assert.equal(show("substring", "foobar", 3), '"obar"');
  assert.equal(show("substring", "foobar", 3, 3), '"oba"');
  assert.equal(show("substring", "foobar", -2, 1), '"a"');
  assert.equal(show("substring", "foobar", 3, 3.8), '"oba"');
  assert.equal(show("substring", `${HORSE}ab`, 2), '"ab"');
  assert.equal(show("substring", `a${HORSE}b`, 2, 1), `"${HORSE}"`);
  assert.equal(showNamed("substring", { string: "foobar", "start position": 3 }), '"obar"');
  assert.equal(show("substring", "foobar", 0), "null");
  assert.equal(show("substring", "foobar", 7), "null");
  assert.equal(show("substring", "foobar", 1, 0), "null");
  assert.equal(show("substring", ["foobar"], 4), '"bar"');
});

Deno.test("string length, upper case, lower case", () => {
  assert.equal(show("string length", `${HORSE}ab`), "3");
  assert.equal(show("string length", ""), "0");
  assert.equal(showNamed("string length", { string: "xyz123" }), "6");
  assert.equal(show("upper case", "aBc4"), '"ABC4"');
  assert.equal(show("lower case", "aBc4"), '"abc4"');
  assert.equal(show("upper case", 1), "null");
});

Deno.test("substring before / after, contains, starts with, ends with", () => {
  assert.equal(show("substring before", "foobar", "bar"), '"foo"');
  assert.equal(show("substring before", "foobar", "xyz"), '""');
  assert.equal(show("substring before", "abc", ""), '""');
  assert.equal(show("substring after", "foobar", "ob"), '"ar"');
  assert.equal(show("substring after", "abc", ""), '"abc"');
  assert.equal(show("substring after", "", "a"), '""');
  assert.equal(show("contains", "foobar", "of"), "false");
  assert.equal(show("contains", ["foobar"], "oo"), "true");
  assert.equal(show("contains", null, "a"), "null");
  assert.equal(show("starts with", "foobar", "fo"), "true");
  assert.equal(show("ends with", "foobar", "r"), "true");
  assert.equal(showNamed("contains", { string: "foobar", match: "b" }), "true");
});

Deno.test("matches uses XPath regular expressions and flags", () => {
  assert.equal(show("matches", "foobar", "^fo*b"), "true");
  assert.equal(show("matches", "abracadabra", "bra", null), "true");
  assert.equal(show("matches", "\nabcd\ndefg\n", "^$", "m"), "true");
  assert.equal(show("matches", "x[Y-z]", "X[y-Z]", "qi"), "true");
  assert.equal(show("matches", "hello world", "hello\\ sworld", "x"), "true");
  assert.equal(show("matches", "O", "[A-Z-[OI]]", "i"), "false");
  assert.equal(show("matches", "abracadabra", "bra", "p"), "null");
  assert.equal(show("matches", "h", "(.)\\2"), "null");
  assert.equal(show("matches", "input", []), "null");
});

Deno.test("replace supports groups in the replacement and rejects empty matches", () => {
  assert.equal(show("replace", "banana", "a", "o"), '"bonono"');
  assert.equal(show("replace", "abcd", "(ab)|(a)", "[1=$1][2=$2]"), '"[1=ab][2=]cd"');
  assert.equal(show("replace", "abracadabra", "a(.)", "a$1$1"), '"abbraccaddabbra"');
  assert.equal(show("replace", "a.b", "\\.", "\\$"), '"a$b"');
  assert.equal(show("replace", "abc", "b*", "x"), "null");
  assert.equal(show("replace", "abc", "b", "$"), "null");
  assert.equal(show("replace", "AbC", "b", "x", "i"), '"AxC"');
});

Deno.test("split tokenizes on a pattern", () => {
  assert.equal(show("split", "John Doe", "\\s"), '["John", "Doe"]');
  assert.equal(show("split", "a;b;c;;", ";"), '["a", "b", "c", "", ""]');
  assert.equal(show("split", "a1b22c", "(\\d)+"), '["a", "b", "c"]');
  assert.equal(show("split", "", ","), "[]");
  assert.equal(showNamed("split", { delimiter: ",", string: "foo,bar" }), '["foo", "bar"]');
  assert.equal(showNamed("split", { delimiter: ",", str: "foo,bar" }), "null");
  assert.equal(show("split", "foo", null), "null");
  assert.equal(show("split", "abc", "x*"), "null");
});

Deno.test("string join skips nulls and accepts a single string", () => {
  assert.equal(show("string join", ["a", "b", "c"]), '"abc"');
  assert.equal(show("string join", ["a", null, "c"], "X"), '"aXc"');
  assert.equal(show("string join", ["a", "b"], null), '"ab"');
  assert.equal(show("string join", [], "X"), '""');
  assert.equal(show("string join", "a", "X"), '"a"');
  assert.equal(show("string join", [1, 2], "X"), "null");
  assert.equal(showNamed("string join", { delimiter: "X", list: ["a", "c"] }), '"aXc"');
  assert.equal(showNamed("string join", { list: ["a"], delimitr: "X" }), "null");
});
