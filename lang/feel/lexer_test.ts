import assert from "node:assert/strict";
import { FeelSyntaxError, LineMap, tokenize } from "./lexer.ts";

function texts(src: string): string[] {
  return tokenize(src).slice(0, -1).map((t) => t.text);
}

function syntaxError(src: string): FeelSyntaxError {
  try {
    tokenize(src);
  } catch (e) {
    if (e instanceof FeelSyntaxError) return e;
    throw e;
  }
  throw new Error(`expected a syntax error for ${src}`);
}

Deno.test("lexer: words, symbols and the end token", () => {
  const tokens = tokenize("a+b <= 10");
  assert.deepEqual(tokens.map((t) => [t.type, t.text]), [
    ["name", "a"],
    ["symbol", "+"],
    ["name", "b"],
    ["symbol", "<="],
    ["number", "10"],
    ["eof", ""],
  ]);
  assert.deepEqual(tokens.map((t) => t.spaced), [false, false, false, true, true, false]);
});

Deno.test("lexer: numbers with a leading dot, fractions and exponents", () => {
  assert.deepEqual(texts(".5 1.25 1.2e3 1E-4 7e+2"), [".5", "1.25", "1.2e3", "1E-4", "7e+2"]);
});

Deno.test("lexer: '..' between numbers is a range, not a fraction", () => {
  assert.deepEqual(texts("[1..10]"), ["[", "1", "..", "10", "]"]);
  assert.deepEqual(texts("x..5"), ["x", "..", "5"]);
});

Deno.test("lexer: longest symbol wins", () => {
  assert.deepEqual(texts("a**b != c >= d .. e"), ["a", "**", "b", "!=", "c", ">=", "d", "..", "e"]);
});

Deno.test("lexer: string escapes", () => {
  const [t] = tokenize(String.raw`"q\" b\\ n\n r\r t\t a\' u\u00e9"`);
  assert.equal(t.type, "string");
  assert.equal(t.text, "q\" b\\ n\n r\r t\t a' u\u00e9");
});

Deno.test("lexer: escaped surrogate pairs and \\U join into one code point", () => {
  assert.equal(tokenize(String.raw`"\uD83D\uDE00"`)[0].text, "😀");
  assert.equal(tokenize(String.raw`"\U01F40E"`)[0].text, "🐎");
  assert.equal([...tokenize(String.raw`"\ud83d\udc0e"`)[0].text].length, 1);
});

Deno.test("lexer: a backslash that starts no escape is kept", () => {
  assert.equal(tokenize(String.raw`"a\qb"`)[0].text, "a\\qb");
});

Deno.test("lexer: unicode names and emoji", () => {
  assert.deepEqual(texts("Größe + 🐎 + 名前"), ["Größe", "+", "🐎", "+", "名前"]);
});

Deno.test("lexer: comments count as whitespace", () => {
  const tokens = tokenize("a // line\n+ /* block\n */b");
  assert.deepEqual(tokens.slice(0, -1).map((t) => t.text), ["a", "+", "b"]);
  assert.equal(tokens[2].spaced, true);
  assert.equal(tokens[2].line, 3);
});

Deno.test("lexer: positions are 1-based lines and columns", () => {
  const tokens = tokenize("x +\n  yy");
  const yy = tokens[2];
  assert.deepEqual([yy.line, yy.column, yy.offset, yy.end], [2, 3, 6, 8]);
});

Deno.test("lexer: CRLF and CR line ends", () => {
  const map = new LineMap("a\r\nb\rc");
  assert.deepEqual(map.span(3, 4), { offset: 3, end: 4, line: 2, column: 1 });
  assert.deepEqual(map.span(5, 6), { offset: 5, end: 6, line: 3, column: 1 });
});

Deno.test("lexer: unterminated string reports where it starts", () => {
  const e = syntaxError('x = "abc');
  assert.match(e.message, /unterminated string/);
  assert.deepEqual([e.at.line, e.at.column], [1, 5]);
});

Deno.test("lexer: unterminated block comment", () => {
  const e = syntaxError("1 +\n /* no end");
  assert.match(e.message, /unterminated comment/);
  assert.deepEqual([e.at.line, e.at.column], [2, 2]);
});

Deno.test("lexer: a character FEEL does not use", () => {
  const e = syntaxError("a # b");
  assert.match(e.message, /unexpected character '#'/);
  assert.equal(e.at.column, 3);
});

Deno.test("lexer: malformed \\u escape", () => {
  assert.match(syntaxError(String.raw`"\u12G4"`).message, /4 hexadecimal digits/);
  assert.match(syntaxError(String.raw`"\U110000"`).message, /beyond the last Unicode code point/);
});
