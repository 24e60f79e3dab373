import assert from "node:assert/strict";
import { FeelDecimal } from "../../lang/feel/mod.ts";
import { jsonCodec } from "./json.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("json: a document decodes to its value, also with a +json type or UTF-16", async () => {
  const doc = '{"id": "A-1", "amount": 12.5, "tags": ["x"], "ok": true, "none": null}';
  const r = await jsonCodec.decode(bytes(doc), "application/vnd.acme+json; charset=utf-8");
  assert.deepEqual(r, {
    outcome: "OK",
    payload: { id: "A-1", amount: 12.5, tags: ["x"], ok: true, none: null },
    issues: [],
  });
  const utf16 = new Uint8Array([0xff, 0xfe, ...[..."[1]"].flatMap((c) => [c.charCodeAt(0), 0])]);
  assert.deepEqual((await jsonCodec.decode(utf16)).payload, [1]);
});

Deno.test("json: malformed text is FATAL with its line and column, never quoting the payload", async () => {
  const cases: [string, number, number, RegExp][] = [
    ['{"a":}', 1, 6, /expected a value/],
    ['{\n  "secret": "xyz"\n  "b": 1}', 3, 3, /expected ',' or '}'/],
    ["[1,2", 1, 5, /found the end of the text/],
    ['{"a":1} x', 1, 9, /unexpected text after/],
    ["", 1, 1, /expected a value/],
    ['"\u0001"', 1, 2, /control character/],
    ['{"a":"\\q"}', 1, 7, /invalid escape/],
    ["[01]", 1, 3, /expected ',' or ']'/],
  ];
  for (const [doc, line, column, reason] of cases) {
    const r = await jsonCodec.decode(bytes(doc));
    assert.equal(r.outcome, "FATAL", doc);
    const [i] = r.issues;
    assert.equal(i.code, "SUTRA.PARSE.JSON.MALFORMED");
    assert.deepEqual([i.line, i.column], [line, column], doc);
    assert.match(i.message, reason);
    assert.doesNotMatch(i.message, /xyz/);
  }
});

Deno.test("json: nesting past the shared depth limit is FATAL where it starts; 512 levels pass", async () => {
  const deep = `{"a": "[[", "b": ${"[".repeat(513)}${"]".repeat(513)}}`;
  const r = await jsonCodec.decode(bytes(deep));
  assert.equal(r.outcome, "FATAL");
  assert.equal(r.issues[0].code, "SUTRA.PARSE.JSON.TOO_DEEP");
  // The object is level 1, so the 512th bracket opens level 513 (the string's do not count).
  assert.deepEqual([r.issues[0].line, r.issues[0].column], [1, 17 + 512]);
  const fits = "[".repeat(512) + "]".repeat(512);
  assert.equal((await jsonCodec.decode(bytes(fits))).outcome, "OK");
});

Deno.test("json: a lone surrogate in a string or member name is FATAL at its JSON pointer", async () => {
  const cases: [string, string][] = [
    ['{"ref": "\\uD800"}', "/ref"],
    ['{"a": [1, {"b/c": "x\\uDFFFy"}]}', "/a/1/b~1c"],
    ['{"k\\uDBFF": 1}', "/k\uFFFD"],
  ];
  for (const [doc, path] of cases) {
    const r = await jsonCodec.decode(bytes(doc));
    assert.equal(r.outcome, "FATAL", doc);
    assert.equal(r.issues[0].code, "SUTRA.PARSE.TEXT.LONE_SURROGATE");
    assert.equal(r.issues[0].path, path);
    assert.match(r.issues[0].message, new RegExp(`'${path.replace("\\", "\\\\")}'`));
  }
  const pair = await jsonCodec.decode(bytes('{"ref": "\\uD83D\\uDE00"}'));
  assert.deepEqual(pair.payload, { ref: "\u{1F600}" });
});

Deno.test("json: a number too large to be one is FATAL at its JSON pointer, never read as null", async () => {
  for (const [doc, path] of [['{"quantity": 1e400}', "/quantity"], ["[1, -1e999]", "/1"]]) {
    const r = await jsonCodec.decode(bytes(doc));
    assert.deepEqual([r.outcome, r.issues[0].code, r.issues[0].path], [
      "FATAL",
      "SUTRA.PARSE.NUMBER.OUT_OF_RANGE",
      path,
    ]);
  }
  assert.deepEqual((await jsonCodec.decode(bytes('{"big": 1e308}'))).payload, { big: 1e308 });
});

Deno.test("json: bytes that are not text in the charset, and foreign content types, are FATAL", async () => {
  const bad = await jsonCodec.decode(new Uint8Array([0x22, 0xc3, 0x28, 0x22]));
  assert.equal(bad.issues[0].code, "SUTRA.PARSE.TEXT.ENCODING");
  assert.match(bad.issues[0].message, /first bad byte at offset 1/);
  const charset = await jsonCodec.decode(bytes("1"), "application/json; charset=klingon");
  assert.equal(charset.issues[0].code, "SUTRA.PARSE.TEXT.CHARSET_UNSUPPORTED");
  const foreign = await jsonCodec.decode(bytes("1"), "text/xml");
  assert.equal(foreign.issues[0].code, "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED");
  assert.match(foreign.issues[0].message, /accepted: application\/json, \+json/);
});

Deno.test("json: replies keep exact decimals; values without a JSON form are refused", async () => {
  const r = await jsonCodec.encode({
    amount: new FeelDecimal("12345678901234567890.125"),
    at: new Date(Date.UTC(2026, 0, 2)),
    raw: new Uint8Array([104, 105]),
    list: [1, null, undefined],
  });
  assert.ok(r.ok);
  assert.equal(
    text(r.bytes),
    '{"amount":12345678901234567890.125,"at":"2026-01-02T00:00:00.000Z","raw":"aGk=","list":[1,null,null]}',
  );
  const nan = await jsonCodec.encode({ a: [0, NaN] });
  assert.ok(!nan.ok);
  assert.deepEqual(nan.issues.map((i) => [i.code, i.path]), [["SUTRA.ENCODE.UNWRITABLE", "/a/1"]]);
});
