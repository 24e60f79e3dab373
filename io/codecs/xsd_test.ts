import assert from "node:assert/strict";
import { buildCodec, buildErrors, fixture, fixtureFiles, inlineFolder } from "./_testing.ts";
import { xsdKind } from "./xsd.ts";
import { schemaCompilations } from "../../engine/bpmn/xsd_validator.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

async function orders(formats = ["xml", "json", "yaml"]) {
  return await buildCodec(xsdKind, {
    path: "schemas/orders",
    urn: "urn:orders",
    manifest: { schemaKind: "xsd", formats },
    files: await fixtureFiles("schemas/orders"),
  });
}

const ORDER_VIEW = {
  channel: "web",
  id: "AB-12345",
  placed: "2026-03-01T09:30:00Z",
  amount: { currency: "EUR", value: 1250.75 },
  rush: true,
  customer: {
    name: "Ada Lovelace",
    email: "ada@example.org",
    address: { street: ["12 Analytical Row"], country: "FR" },
  },
  line: [{ sku: "WIDGET-1", qty: 3, price: { currency: "EUR", value: 400.25 } }],
  note: null,
};

Deno.test("xsd: a valid document is OK, typed by the schema, its root the message type", async () => {
  const codec = await orders();
  assert.deepEqual(codec.messageTypes(), ["Cancel", "Order"]);
  const r = await codec.decode(await fixture("order.xml"), "application/xml");
  assert.deepEqual(r, { outcome: "OK", messageType: "Order", payload: ORDER_VIEW, issues: [] });
});

Deno.test("xsd: every violation is a soft error with its line, path and value", async () => {
  const codec = await orders();
  const r = await codec.decode(await fixture("order_invalid.xml"));
  assert.equal(r.outcome, "SOFT_ERRORS");
  assert.equal(r.messageType, "Order");
  assert.deepEqual(r.issues.map((i) => [i.path, i.line, i.value ?? null]), [
    ["/channel", 2, "fax"],
    ["/id", 3, "12345"],
    ["/amount", 5, "-3"],
    ["/customer/address/country", 10, "XX"],
    ["/line/0/sku", 14, null],
    ["/line/0/qty", 15, "0"],
    ["/colour", 18, null],
  ]);
  assert.ok(r.issues.every((i) => i.code === "SUTRA.VALIDATE.XSD.VIOLATION"));
  assert.match(r.issues[1].message, /pattern '\[A-Z\]\{2\}-\[0-9\]\{4,8\}'/);
  assert.match(r.issues[0].message, /\{'web', 'store'\}/);
  assert.doesNotMatch(r.issues[6].message, /urn:example/);
  assert.deepEqual((r.payload as Record<string, unknown>).colour, "red");
});

Deno.test("xsd: malformed XML is FATAL; an undeclared root is a soft error", async () => {
  const codec = await orders();
  const malformed = await codec.decode(bytes('<Order xmlns="urn:example:orders">'));
  assert.equal(malformed.outcome, "FATAL");
  assert.equal(malformed.issues[0].code, "SUTRA.PARSE.XML.MALFORMED");
  const stranger = await codec.decode(bytes("<Invoice><n>1</n></Invoice>"));
  assert.equal(stranger.outcome, "SOFT_ERRORS");
  assert.equal(stranger.messageType, "Invoice");
  assert.deepEqual(stranger.payload, { n: "1" });
  assert.equal(stranger.issues[0].code, "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED");
  const foreignNs = await codec.decode(bytes('<Order xmlns="urn:other"/>'));
  assert.equal(foreignNs.issues[0].code, "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED");
});

Deno.test("xsd: JSON and YAML map onto the same XML and yield the same payload", async () => {
  const codec = await orders();
  const json = await codec.decode(await fixture("order.json"), "application/json");
  assert.deepEqual(json, { outcome: "OK", messageType: "Order", payload: ORDER_VIEW, issues: [] });
  const yaml = await codec.decode(
    bytes(`Cancel:
  orderId: AB-1234
  reason: changed my mind
`),
  );
  assert.deepEqual(yaml, {
    outcome: "OK",
    messageType: "Cancel",
    payload: { orderId: "AB-1234", reason: "changed my mind" },
    issues: [],
  });
});

Deno.test("xsd: violations in a JSON document point into the JSON", async () => {
  const codec = await orders();
  const doc = {
    Order: {
      channel: "fax",
      id: "AB-12345",
      placed: "yesterday",
      amount: { currency: "EUR", value: 10 },
      customer: { name: "Ada", address: { street: ["a", "b", "c"], country: "DE" } },
      line: [
        { sku: "ABC", qty: 1, price: { currency: "EUR", value: 1 } },
        { sku: "ABC", qty: -2, price: { currency: "EUR", value: 1 } },
      ],
      "bad key": 1,
    },
  };
  const r = await codec.decode(bytes(JSON.stringify(doc)));
  assert.equal(r.outcome, "SOFT_ERRORS");
  assert.deepEqual(r.issues.map((i) => [i.code, i.path]), [
    ["SUTRA.VALIDATE.XSD.MAPPING", "/bad key"],
    ["SUTRA.VALIDATE.XSD.VIOLATION", "/channel"],
    ["SUTRA.VALIDATE.XSD.VIOLATION", "/placed"],
    ["SUTRA.VALIDATE.XSD.VIOLATION", "/customer/address/street/2"],
    ["SUTRA.VALIDATE.XSD.VIOLATION", "/line/1/qty"],
  ]);
  const shapeless = await codec.decode(bytes('{"a": 1, "b": 2}'));
  assert.equal(shapeless.outcome, "SOFT_ERRORS");
  assert.equal(shapeless.issues[0].code, "SUTRA.VALIDATE.XSD.MAPPING");
  const broken = await codec.decode(bytes('{"Order": '));
  assert.equal(broken.outcome, "FATAL");
  assert.equal(broken.issues[0].code, "SUTRA.PARSE.JSON.MALFORMED");
});

Deno.test("xsd: without a content type the format is sniffed, UTF-16 included", async () => {
  const codec = await orders();
  const text = new TextDecoder().decode(await fixture("order.xml"))
    .replace('encoding="UTF-8"', 'encoding="UTF-16"');
  const utf16 = new Uint8Array([0xff, 0xfe, ...[...text].flatMap((c) => [c.charCodeAt(0), 0])]);
  const r = await codec.decode(utf16);
  assert.deepEqual(r, { outcome: "OK", messageType: "Order", payload: ORDER_VIEW, issues: [] });
});

Deno.test("xsd: only the manifest's formats are accepted", async () => {
  const codec = await orders(["xml"]);
  assert.deepEqual(codec.contentTypes, ["application/xml", "text/xml", "+xml"]);
  const r = await codec.decode(await fixture("order.json"), "application/json");
  assert.equal(r.outcome, "FATAL");
  assert.equal(r.issues[0].code, "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED");
});

Deno.test("xsd: the shape follows the schema: lists where elements repeat, scalar types", async () => {
  const codec = await orders();
  const shape = codec.shapeOf("Order");
  assert.ok(shape?.kind === "record");
  assert.deepEqual(shape.fields.amount, {
    kind: "record",
    fields: {
      currency: { kind: "scalar", type: "string" },
      value: { kind: "scalar", type: "number" },
    },
  });
  assert.deepEqual(shape.fields.line.kind, "list");
  assert.deepEqual(shape.fields.rush, { kind: "scalar", type: "boolean" });
  assert.deepEqual(codec.shapeOf("Cancel"), {
    kind: "record",
    fields: {
      orderId: { kind: "scalar", type: "string" },
      reason: { kind: "scalar", type: "string" },
    },
  });
  assert.equal(codec.shapeOf("Invoice"), undefined);
});

Deno.test("xsd: replies are validated before they are written", async () => {
  const codec = await orders();
  const ok = await codec.encode({ orderId: "AB-1234" }, { messageType: "Cancel" });
  assert.ok(ok.ok);
  assert.match(text(ok.bytes), /<n0:Cancel xmlns:n0="urn:example:orders">\n<n0:orderId>AB-1234</);
  const json = await codec.encode({ orderId: "AB-1234" }, {
    messageType: "Cancel",
    contentType: "application/json",
  });
  assert.ok(json.ok);
  assert.equal(text(json.bytes), '{"Cancel":{"orderId":"AB-1234"}}');
  const invalid = await codec.encode({ orderId: "nope" }, { messageType: "Cancel" });
  assert.ok(!invalid.ok);
  assert.deepEqual(invalid.issues.map((i) => [i.code, i.path]), [[
    "SUTRA.VALIDATE.XSD.VIOLATION",
    "/orderId",
  ]]);
  const unknown = await codec.encode({}, { messageType: "Invoice" });
  assert.ok(!unknown.ok);
  assert.equal(unknown.issues[0].code, "SUTRA.ENCODE.MESSAGE_TYPE_UNKNOWN");
  const missing = await codec.encode({});
  assert.ok(!missing.ok);
  assert.equal(missing.issues[0].code, "SUTRA.ENCODE.MESSAGE_TYPE_MISSING");
});

const XSD = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">`;

Deno.test("xsd kind: every layout, manifest and schema problem is a deploy-time diagnostic", async () => {
  const layout = await buildErrors(
    xsdKind,
    inlineFolder({ "a.xsd": `${XSD}<xs:element name="A"/></xs:schema>`, "notes.txt": "x" }, {
      schemaKind: "xsd",
      formats: ["xml", "csv", "xml"],
      extra: 1,
    }),
  );
  assert.deepEqual(layout.map((d) => [d.code, d.source?.uri]), [
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/test/codec-manifest.yaml"],
    ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "schemas/test/notes.txt"],
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/test/codec-manifest.yaml"],
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/test/codec-manifest.yaml"],
  ]);
  const empty = await buildErrors(xsdKind, inlineFolder({}, { schemaKind: "xsd" }));
  assert.deepEqual(empty.map((d) => d.code), ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID"]);
});

Deno.test("xsd kind: schemas that do not compile are refused with file and line", async () => {
  const cases: [Record<string, string>, string, number | undefined, RegExp][] = [
    [{ "a.xsd": `${XSD}\n<xs:element name="A">` }, "a.xsd", 2, /./],
    [
      { "a.xsd": `${XSD}\n<xs:element name="A" type="Missing"/></xs:schema>` },
      "a.xsd",
      2,
      /not declared/,
    ],
    [
      {
        "a.xsd":
          `${XSD}\n<xs:element name="A">\n<xs:complexType><xs:sequence><xs:element name="b" minOccurs="x"/></xs:sequence></xs:complexType></xs:element></xs:schema>`,
      },
      "a.xsd",
      3,
      /minOccurs/,
    ],
    [
      { "a.xsd": `${XSD}<xs:complexType name="T"/></xs:schema>` },
      "a.xsd",
      undefined,
      /no global element/,
    ],
    [{ "a.xsd": "<schema/>" }, "a.xsd", 1, /not xs:schema/],
  ];
  for (const [files, file, line, message] of cases) {
    const found = await buildErrors(xsdKind, inlineFolder(files, { schemaKind: "xsd" }));
    assert.equal(found[0].code, "SUTRA.CONFIG.SCHEMA.INVALID", JSON.stringify(found));
    assert.equal(found[0].source?.uri, `schemas/test/${file}`);
    assert.equal(found[0].source?.line, line, JSON.stringify(found));
    assert.match(found[0].message, message);
  }
});

Deno.test("xsd kind: content models, extensions, groups and wildcards shape the payload", async () => {
  const codec = await buildCodec(
    xsdKind,
    inlineFolder({
      "m.xsd": `${XSD}
  <xs:complexType name="Base"><xs:sequence><xs:element name="id" type="xs:int"/></xs:sequence>
    <xs:attribute name="v" type="xs:decimal"/></xs:complexType>
  <xs:group name="G"><xs:choice><xs:element name="x" type="xs:string"/><xs:element name="y" type="xs:double"/></xs:choice></xs:group>
  <xs:attributeGroup name="AG"><xs:attribute name="flag" type="xs:boolean"/></xs:attributeGroup>
  <xs:element name="Doc">
    <xs:complexType><xs:complexContent><xs:extension base="Base">
      <xs:sequence>
        <xs:group ref="G" maxOccurs="3"/>
        <xs:element name="big" type="xs:decimal" minOccurs="0"/>
        <xs:element name="self" type="Base" minOccurs="0"/>
      </xs:sequence>
      <xs:attributeGroup ref="AG"/>
      <xs:anyAttribute processContents="skip"/>
    </xs:extension></xs:complexContent></xs:complexType>
  </xs:element>
</xs:schema>`,
    }, { schemaKind: "xsd" }),
  );
  const r = await codec.decode(
    bytes(
      '<Doc v="1.5" flag="1" z="free"><id> 7 </id><x>a</x><y>2e3</y><big>12345678901234567.25</big></Doc>',
    ),
  );
  assert.equal(r.outcome, "OK", JSON.stringify(r.issues));
  const p = r.payload as Record<string, unknown>;
  assert.deepEqual({ ...p, big: String(p.big) }, {
    v: 1.5,
    flag: true,
    id: 7,
    x: ["a"],
    y: [2000],
    big: "12345678901234567.25",
    z: "free",
  });
  const shape = codec.shapeOf();
  assert.ok(shape?.kind === "record");
  assert.equal(shape.open, true);
  assert.deepEqual(Object.keys(shape.fields), ["v", "flag", "id", "x", "y", "big", "self"]);
});

Deno.test("xsd: a schema is compiled once per deployment, never per message", async () => {
  const before = schemaCompilations();
  const codec = await orders();
  const compiled = schemaCompilations() - before;
  assert.ok(compiled >= 1);
  const order = await fixture("order.xml");
  const invalid = await fixture("order_invalid.xml");
  const json = await fixture("order.json");
  for (let i = 0; i < 20; i++) {
    assert.equal((await codec.decode(order, "application/xml")).outcome, "OK");
    assert.equal((await codec.decode(invalid, "application/xml")).outcome, "SOFT_ERRORS");
    assert.equal((await codec.decode(json, "application/json")).outcome, "OK");
  }
  const reply = await codec.encode({ orderId: "AB-1234" }, { messageType: "Cancel" });
  assert.equal(reply.ok, true);
  assert.equal(schemaCompilations() - before, compiled);
  await orders();
  assert.equal(schemaCompilations() - before, 2 * compiled);
});

Deno.test("xsd kind: includes and imports come from the folder only, never a file or URL", async () => {
  const real = new URL("../../tests/fixtures/codecs/schemas/orders/order.xsd", import.meta.url);
  for (const location of [real.href, real.pathname, "http://127.0.0.1:9/x.xsd"]) {
    const found = await buildErrors(
      xsdKind,
      inlineFolder({
        "a.xsd":
          `${XSD}\n<xs:include schemaLocation="${location}"/>\n<xs:element name="A" type="xs:string"/></xs:schema>`,
      }, { schemaKind: "xsd" }),
    );
    assert.equal(found[0]?.code, "SUTRA.CONFIG.SCHEMA.INVALID", JSON.stringify(found));
    assert.equal(found[0].source?.uri, "schemas/test/a.xsd");
  }
});

/** The entity declarations of a "billion laughs" bomb, `levels` deep. */
function laughs(levels: number): string {
  let entities = '<!ENTITY l0 "lol">';
  for (let n = 1; n < levels; n++) entities += `<!ENTITY l${n} "${`&l${n - 1};`.repeat(10)}">`;
  return entities;
}

Deno.test("xsd: a DOCTYPE is refused unread (no external entity, no expansion); so is deep nesting", async () => {
  const codec = await orders();
  const order = '<Order xmlns="urn:example:orders" channel="web">';
  for (
    const doc of [
      `<!DOCTYPE Order [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n${order}<id>&x;</id></Order>`,
      `<!DOCTYPE Order [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>\n${order}<id>&b;</id></Order>`,
      `<?xml version="1.0"?>\n<!DOCTYPE Order SYSTEM "http://127.0.0.1:9/order.dtd">\n${order}</Order>`,
      `<?xml version="1.0"?>\n<!-- a bomb -->\n<!DOCTYPE Order [${
        laughs(12)
      }]>\n${order}<id>&l11;</id></Order>`,
    ]
  ) {
    const r = await codec.decode(bytes(doc), "application/xml");
    assert.equal(r.outcome, "FATAL");
    assert.equal(r.issues[0].code, "SUTRA.PARSE.XML.DOCTYPE_FORBIDDEN", doc);
    assert.equal(
      r.issues[0].line,
      doc.indexOf("<!DOCTYPE") > 0 ? doc.split("<!DOCTYPE")[0].split("\n").length : 1,
    );
  }
  const deep = `${order}<customer>${"<name>".repeat(600)}${
    "</name>".repeat(600)
  }</customer></Order>`;
  const r = await codec.decode(bytes(deep), "application/xml");
  assert.deepEqual([r.outcome, r.issues[0].code], ["FATAL", "SUTRA.PARSE.XML.TOO_DEEP"]);
  const malformed = await codec.decode(bytes(`${order}\n<id>AB-1234</Order>`), "application/xml");
  assert.deepEqual(
    [malformed.outcome, malformed.issues[0].code, malformed.issues[0].line],
    ["FATAL", "SUTRA.PARSE.XML.MALFORMED", 2],
  );
});

Deno.test("xsd: JSON and YAML nested past libxml2's 256 levels are too deep in their own format", async () => {
  const codec = await orders();
  // `Order` is level 1; each `x` member nests one element deeper.
  const nested = (levels: number) =>
    `{"Order": ${'{"x": '.repeat(levels - 1)}"v"${"}".repeat(levels - 1)}}`;
  for (
    const [type, code] of [["application/json", "SUTRA.PARSE.JSON.TOO_DEEP"], [
      "application/yaml",
      "SUTRA.PARSE.YAML.TOO_DEEP",
    ]]
  ) {
    for (const levels of [257, 300, 512]) {
      const r = await codec.decode(bytes(nested(levels)), type);
      assert.deepEqual(
        [r.outcome, r.issues.map((i) => i.code)],
        ["FATAL", [code]],
        `${type} ${levels}`,
      );
      assert.equal(r.issues[0].path, `/x${"/x".repeat(255)}`);
    }
    const fits = await codec.decode(bytes(nested(256)), type);
    assert.equal(fits.outcome, "SOFT_ERRORS", type);
    assert.ok(fits.issues.every((i) => i.code === "SUTRA.VALIDATE.XSD.VIOLATION"), type);
  }
  let value: unknown = "v";
  for (let i = 0; i < 300; i++) value = { x: value };
  const reply = await codec.encode(value, { messageType: "Cancel" });
  assert.equal(reply.ok, false);
  assert.deepEqual(!reply.ok && reply.issues.map((i) => i.code), ["SUTRA.ENCODE.UNWRITABLE"]);
});
