import assert from "node:assert/strict";
import { buildCodec, inlineFolder } from "./_testing.ts";
import { xsdKind } from "./xsd.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

const SCHEMA = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:complexType name="Item" mixed="true">
    <xs:sequence><xs:element name="a" type="xs:string" minOccurs="0"/></xs:sequence>
    <xs:attribute name="a" type="xs:int"/>
    <xs:attribute name="value" type="xs:int"/>
    <xs:attribute name="b" type="xs:boolean"/>
  </xs:complexType>
  <xs:element name="Doc">
    <xs:complexType><xs:sequence>
      <xs:element name="item" type="Item" maxOccurs="unbounded"/>
      <xs:element name="n" type="xs:decimal" maxOccurs="unbounded"/>
    </xs:sequence></xs:complexType>
  </xs:element>
</xs:schema>`;

async function codec() {
  return await buildCodec(xsdKind, inlineFolder({ "doc.xsd": SCHEMA }, { schemaKind: "xsd" }));
}

async function payloadOf(xml: string): Promise<Record<string, unknown>> {
  const r = await (await codec()).decode(bytes(xml), "application/xml");
  return r.payload as Record<string, unknown>;
}

Deno.test("xsd view: elements of one type keep their own keys, whatever came before", async () => {
  const items = [
    '<item a="1"><a>x</a></item>',
    '<item b="true">text<a>y</a></item>',
    '<item value="2">more</item>',
    "<item><a>z</a></item>",
    '<item a="3" value="4" b="false">last</item>',
  ];
  const expected = [
    { a: "x", "@a": 1 },
    { a: "y", b: true, value: "text" },
    { value: 2, "#text": "more" },
    { a: "z" },
    { "@a": 3, value: 4, b: false, "#text": "last" },
  ];
  // The same elements in two orders, through one codec: no shape borrows another's keys.
  const c = await codec();
  for (const order of [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]) {
    const xml = `<Doc>${order.map((i) => items[i]).join("")}<n>1</n></Doc>`;
    const r = await c.decode(bytes(xml), "application/xml");
    assert.deepEqual(r.issues, []);
    assert.deepEqual((r.payload as Record<string, unknown>).item, order.map((i) => expected[i]));
  }
});

Deno.test("xsd view: a child the type does not declare is kept under its own name", async () => {
  const r = await (await codec()).decode(
    bytes('<Doc><item a="1"><a>x</a><c>odd</c></item><n>1</n></Doc>'),
    "application/xml",
  );
  assert.equal(r.outcome, "SOFT_ERRORS");
  assert.deepEqual((r.payload as { item: unknown[] }).item, [{ a: "x", "@a": 1, c: "odd" }]);
});

Deno.test("xsd view: decimals are numbers up to 15 significant digits, exact beyond", async () => {
  const values = [
    "1",
    " 12.50 ",
    "-0.000000000000001",
    "000000000000000012345",
    "123456789012345.0000",
    "1234567890123456",
    "1.5e3",
    "+.5",
  ];
  const p = await payloadOf(`<Doc><item/>${values.map((v) => `<n>${v}</n>`).join("")}</Doc>`);
  const n = p.n as unknown[];
  assert.deepEqual(n.slice(0, 5), [1, 12.5, -1e-15, 12345, 123456789012345]);
  assert.equal(typeof n[5], "object", "16 significant digits stay an exact decimal");
  assert.equal(String(n[5]), "1234567890123456");
  assert.deepEqual(n.slice(6), [1500, 0.5]);
});
