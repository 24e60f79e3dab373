import assert from "node:assert/strict";
import { csvCodec } from "./csv.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("csv: the header names the fields of every record; quoting follows RFC 4180", async () => {
  const doc =
    'id,name,note\r\n1,"Lovelace, Ada","said ""hi""\r\nthen left"\r\n\r\n2,Babbage,\r\n3,"",007\n';
  const r = await csvCodec.decode(bytes(doc), "text/csv; charset=utf-8");
  assert.deepEqual(r, {
    outcome: "OK",
    payload: [
      { id: "1", name: "Lovelace, Ada", note: 'said "hi"\r\nthen left' },
      { id: "2", name: "Babbage", note: "" },
      { id: "3", name: "", note: "007" },
    ],
    issues: [],
  });
});

Deno.test("csv: every record with the wrong field count is a soft error on its line", async () => {
  const r = await csvCodec.decode(bytes("a,b\n1\n2,3\n4,5,6\n"));
  assert.equal(r.outcome, "SOFT_ERRORS");
  assert.deepEqual(r.payload, [{ a: "1", b: null }, { a: "2", b: "3" }, { a: "4", b: "5" }]);
  assert.deepEqual(r.issues.map((i) => [i.code, i.path, i.line, i.value]), [
    ["SUTRA.PARSE.CSV.FIELD_COUNT", "/0", 2, 1],
    ["SUTRA.PARSE.CSV.FIELD_COUNT", "/2", 4, 3],
  ]);
});

Deno.test("csv: broken quoting and unusable headers are FATAL with where", async () => {
  const cases: [string, string, number | undefined][] = [
    ['a,b\n1,"open\n', "SUTRA.PARSE.CSV.MALFORMED", 2],
    ['a,b\n1,"x"y\n', "SUTRA.PARSE.CSV.MALFORMED", 2],
    ['a,b\n1,x"y\n', "SUTRA.PARSE.CSV.MALFORMED", 2],
    ["", "SUTRA.PARSE.CSV.HEADER_INVALID", undefined],
    ["a,,c\n1,2,3\n", "SUTRA.PARSE.CSV.HEADER_INVALID", 1],
    ["a,b,a\n", "SUTRA.PARSE.CSV.HEADER_INVALID", 1],
  ];
  for (const [doc, code, line] of cases) {
    const r = await csvCodec.decode(bytes(doc));
    assert.equal(r.outcome, "FATAL", doc);
    assert.equal(r.issues[0].code, code, doc);
    assert.equal(r.issues[0].line, line, doc);
  }
});

Deno.test("csv: a header named __proto__ is an ordinary field", async () => {
  const r = await csvCodec.decode(bytes("__proto__,b\n1,2\n"));
  const [record] = r.payload as Record<string, unknown>[];
  assert.deepEqual(Object.keys(record), ["__proto__", "b"]);
  assert.equal(Object.getPrototypeOf(record), Object.prototype);
});

Deno.test("csv: replies are written from a list of contexts, quoting where needed", async () => {
  const r = await csvCodec.encode([{ id: 1, name: "A, B" }, { name: 'say "x"', extra: true }]);
  assert.ok(r.ok);
  assert.equal(
    new TextDecoder().decode(r.bytes),
    'id,name,extra\r\n1,"A, B",\r\n,"say ""x""",true\r\n',
  );
  const nested = await csvCodec.encode([{ a: { b: 1 } }]);
  assert.ok(!nested.ok);
  assert.equal(nested.issues[0].path, "/0/a");
  assert.ok(!(await csvCodec.encode({ a: 1 })).ok);
});
