import assert from "node:assert/strict";
import { yamlCodec } from "./yaml.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("yaml: one document under the YAML 1.2 core schema", async () => {
  const r = await yamlCodec.decode(
    bytes("id: A-1\nflag: yes\nwhen: 2026-03-01\nitems:\n  - qty: 2\n  - qty: 3\n"),
    "application/yaml",
  );
  assert.deepEqual(r, {
    outcome: "OK",
    payload: { id: "A-1", flag: "yes", when: "2026-03-01", items: [{ qty: 2 }, { qty: 3 }] },
    issues: [],
  });
});

Deno.test("yaml: every syntax error is FATAL with its line; duplicates and streams are refused", async () => {
  const broken = await yamlCodec.decode(bytes("a: [1, 2\nb: {x: 1\n"));
  assert.equal(broken.outcome, "FATAL");
  assert.ok(broken.issues.length >= 1);
  assert.ok(broken.issues.every((i) => i.code === "SUTRA.PARSE.YAML.MALFORMED" && i.line! >= 1));
  const duplicate = await yamlCodec.decode(bytes("a: 1\nb: 2\na: 3\n"));
  assert.equal(duplicate.outcome, "FATAL");
  assert.equal(duplicate.issues[0].line, 3);
  assert.match(duplicate.issues[0].message, /unique/);
  const stream = await yamlCodec.decode(bytes("a: 1\n---\nb: 2\n"));
  assert.equal(stream.outcome, "FATAL");
});

Deno.test("yaml: alias expansion beyond the limit is FATAL (no billion laughs)", async () => {
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 0; i < 8; i++) {
    const prev = String.fromCharCode(97 + i);
    const next = String.fromCharCode(98 + i);
    lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(", ")}]`);
  }
  const r = await yamlCodec.decode(bytes(lines.join("\n")));
  assert.equal(r.outcome, "FATAL");
  assert.match(r.issues[0].message, /alias/i);
});

Deno.test("yaml: nesting past the shared depth limit, or an alias inside itself, is FATAL", async () => {
  for (const doc of ["[".repeat(513) + "]".repeat(513), "&a [*a]"]) {
    const r = await yamlCodec.decode(bytes(doc));
    assert.equal(r.outcome, "FATAL", doc);
    assert.equal(r.issues[0].code, "SUTRA.PARSE.YAML.TOO_DEEP");
  }
  const fits = await yamlCodec.decode(bytes("[".repeat(512) + "]".repeat(512)));
  assert.equal(fits.outcome, "OK");
});

Deno.test("yaml: a lone surrogate is FATAL at its JSON pointer", async () => {
  const r = await yamlCodec.decode(bytes('ref: "\\uD800"\n'));
  assert.equal(r.outcome, "FATAL");
  assert.deepEqual([r.issues[0].code, r.issues[0].path], [
    "SUTRA.PARSE.TEXT.LONE_SURROGATE",
    "/ref",
  ]);
});

Deno.test("yaml: .inf and .nan are FATAL at their JSON pointer", async () => {
  for (const doc of ["amount: .inf\n", "amount: -.Inf\n", "amount: .nan\n"]) {
    const r = await yamlCodec.decode(bytes(doc));
    assert.deepEqual([r.outcome, r.issues[0]?.code, r.issues[0]?.path], [
      "FATAL",
      "SUTRA.PARSE.NUMBER.OUT_OF_RANGE",
      "/amount",
    ], doc);
  }
});

Deno.test("yaml: warnings are kept as WARNING issues on an OK payload", async () => {
  const r = await yamlCodec.decode(bytes("%FOO bar\n---\na: 1\n"));
  assert.equal(r.outcome, "OK");
  assert.deepEqual(r.payload, { a: 1 });
  assert.equal(r.issues[0].code, "SUTRA.PARSE.YAML.WARNING");
  assert.equal(r.issues[0].severity, "WARNING");
});

Deno.test("yaml: a collection used as a key is read as text, with a warning", async () => {
  const r = await yamlCodec.decode(bytes("? [a, b]\n: 1\n"));
  assert.equal(r.outcome, "OK");
  assert.deepEqual(r.payload, { "[ a, b ]": 1 });
  assert.deepEqual(r.issues.map((i) => [i.code, i.severity, i.line]), [
    ["SUTRA.PARSE.YAML.WARNING", "WARNING", 1],
  ]);
});

Deno.test("yaml: replies are YAML text", async () => {
  const r = await yamlCodec.encode({ a: [1, "two"] });
  assert.ok(r.ok);
  assert.equal(new TextDecoder().decode(r.bytes), "a:\n  - 1\n  - two\n");
});
