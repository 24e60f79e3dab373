import assert from "node:assert/strict";
import { buildCodec, buildErrors, fixtureFiles, inlineFolder } from "./_testing.ts";
import { jsonSchemaKind } from "./json_schema.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

async function events() {
  return await buildCodec(jsonSchemaKind, {
    path: "schemas/events",
    urn: "urn:events",
    manifest: { schemaKind: "json-schema", formats: ["json", "yaml"], discriminator: "type" },
    files: await fixtureFiles("schemas/events"),
  });
}

const PAYMENT = {
  type: "PaymentReceived",
  id: "P-1",
  amount: { value: 12.5, currency: "EUR" },
  received: "2026-03-01T09:30:00Z",
};

Deno.test("json-schema: the discriminator names the message type; a valid document is OK", async () => {
  const codec = await events();
  assert.deepEqual(codec.messageTypes(), ["PaymentReceived", "RefundIssued", "common"]);
  const r = await codec.decode(bytes(JSON.stringify(PAYMENT)), "application/json");
  assert.deepEqual(r, {
    outcome: "OK",
    messageType: "PaymentReceived",
    payload: PAYMENT,
    issues: [],
  });
  const yaml = await codec.decode(bytes("type: RefundIssued\npayment: P-1\nlines: [1, 2]\n"));
  assert.equal(yaml.outcome, "OK");
  assert.equal(yaml.messageType, "RefundIssued");
});

Deno.test("json-schema: every violation is a soft error at its JSON Pointer", async () => {
  const codec = await events();
  const doc = {
    type: "PaymentReceived",
    id: "X-1",
    amount: { value: -1, currency: "GBP" },
    received: "soon",
    extra: true,
  };
  const r = await codec.decode(bytes(JSON.stringify(doc)));
  assert.equal(r.outcome, "SOFT_ERRORS");
  assert.deepEqual(r.payload, doc);
  assert.deepEqual(
    r.issues.map((i) => [i.code, i.path, i.value ?? null]).sort(),
    [
      ["SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", "/amount/currency", "GBP"],
      ["SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", "/amount/value", -1],
      ["SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", "/extra", null],
      ["SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", "/id", "X-1"],
      ["SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", "/received", "soon"],
    ],
  );
  const missing = await codec.decode(bytes('{"type": "RefundIssued"}'));
  assert.deepEqual(missing.issues.map((i) => i.path), ["/payment"]);
});

Deno.test("json-schema: no usable discriminator is a soft error; malformed text is FATAL", async () => {
  const codec = await events();
  const unknown = await codec.decode(bytes('{"type": "Nope"}'));
  assert.equal(unknown.outcome, "SOFT_ERRORS");
  assert.equal(unknown.messageType, undefined);
  assert.deepEqual(unknown.issues.map((i) => [i.code, i.path, i.value]), [
    ["SUTRA.VALIDATE.JSON_SCHEMA.TYPE_UNRESOLVED", "/type", "Nope"],
  ]);
  const malformed = await codec.decode(bytes('{"type": '), "application/json");
  assert.equal(malformed.outcome, "FATAL");
  const xml = await codec.decode(bytes("<a/>"), "application/xml");
  assert.equal(xml.issues[0].code, "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED");
});

Deno.test("json-schema: JSON and YAML payloads keep the shared depth and text limits", async () => {
  const codec = await events();
  const deep = `{"type": "PaymentReceived", "id": ${"[".repeat(600)}${"]".repeat(600)}}`;
  const json = await codec.decode(bytes(deep), "application/json");
  assert.deepEqual([json.outcome, json.issues[0].code], ["FATAL", "SUTRA.PARSE.JSON.TOO_DEEP"]);
  const lone = await codec.decode(bytes('type: PaymentReceived\nid: "\\uD800"\n'));
  assert.deepEqual([lone.outcome, lone.issues[0].code, lone.issues[0].path], [
    "FATAL",
    "SUTRA.PARSE.TEXT.LONE_SURROGATE",
    "/id",
  ]);
});

Deno.test("json-schema: shapes follow properties, $refs across files, and cut recursion", async () => {
  const codec = await events();
  const shape = codec.shapeOf("PaymentReceived");
  assert.ok(shape?.kind === "record" && shape.open !== true);
  assert.deepEqual(shape.fields.amount, {
    kind: "record",
    fields: { value: { kind: "scalar", type: "number" }, currency: { kind: "any" } },
  });
  const payer = shape.fields.payer;
  assert.ok(payer.kind === "record");
  assert.deepEqual(payer.fields.contacts, { kind: "list", item: { kind: "any" } });
  assert.deepEqual(codec.shapeOf("RefundIssued"), {
    kind: "record",
    open: true,
    fields: {
      type: { kind: "any" },
      payment: { kind: "scalar", type: "string" },
      lines: { kind: "list", item: { kind: "scalar", type: "number" } },
    },
  });
});

Deno.test("json-schema: replies are validated against the message type's schema", async () => {
  const codec = await events();
  const ok = await codec.encode(PAYMENT);
  assert.ok(ok.ok);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(ok.bytes)), PAYMENT);
  const yaml = await codec.encode(PAYMENT, { contentType: "application/yaml" });
  assert.ok(yaml.ok);
  assert.match(new TextDecoder().decode(yaml.bytes), /^type: PaymentReceived\n/);
  const bad = await codec.encode({ ...PAYMENT, id: "nope" });
  assert.ok(!bad.ok);
  assert.deepEqual(bad.issues.map((i) => i.path), ["/id"]);
});

Deno.test("json-schema kind: deploy-time problems are reported, all of them", async () => {
  const twoWithout = await buildErrors(
    jsonSchemaKind,
    inlineFolder({ "a.json": '{"type":"object"}', "b.json": '{"type":"string"}' }, {
      schemaKind: "json-schema",
    }),
  );
  assert.deepEqual(twoWithout.map((d) => d.code), ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID"]);
  assert.match(twoWithout[0].message, /discriminator/);
  const broken = await buildErrors(
    jsonSchemaKind,
    inlineFolder({
      "a.json": '{"type": 12}',
      "b.json": '{"type": "object",\n "properties": {"x": {"$ref": "#/nope"}}}',
      "c.json": "{oops",
      "d.yaml": "x: 1",
    }, { schemaKind: "json-schema", discriminator: "" }),
  );
  assert.deepEqual(broken.map((d) => [d.code, d.source?.uri]), [
    ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "schemas/test/d.yaml"],
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/test/codec-manifest.yaml"],
  ]);
  const schemas = await buildErrors(
    jsonSchemaKind,
    inlineFolder({
      "a.json": '{"type": 12}',
      "b.json": '{"type": "object",\n "properties": {"x": {"$ref": "#/nope"}}}',
      "c.json": "{oops",
    }, { schemaKind: "json-schema", discriminator: "kind" }),
  );
  assert.deepEqual(schemas.map((d) => [d.code, d.source?.uri]), [
    ["SUTRA.CONFIG.SCHEMA.INVALID", "schemas/test/c.json"],
  ]);
  const compiled = await buildErrors(
    jsonSchemaKind,
    inlineFolder({
      "a.json": '{"type": 12}',
      "b.json": '{"type": "object", "properties": {"x": {"$ref": "#/nope"}}}',
      "old.json": '{"$schema": "http://json-schema.org/draft-04/schema#"}',
    }, { schemaKind: "json-schema", discriminator: "kind" }),
  );
  assert.deepEqual(compiled.map((d) => d.source?.uri), ["schemas/test/old.json"]);
  const refs = await buildErrors(
    jsonSchemaKind,
    inlineFolder({
      "a.json": '{"type": 12}',
      "b.json": '{"type": "object", "properties": {"x": {"$ref": "#/nope"}}}',
    }, { schemaKind: "json-schema", discriminator: "kind" }),
  );
  assert.deepEqual(refs.map((d) => [d.source?.uri, /JSON Schema|resolve/.test(d.message)]), [
    ["schemas/test/a.json", true],
    ["schemas/test/b.json", true],
  ]);
});
