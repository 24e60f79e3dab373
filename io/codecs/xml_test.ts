import assert from "node:assert/strict";
import { xmlCodec } from "./xml.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

async function view(xml: string): Promise<unknown> {
  const r = await xmlCodec.decode(bytes(xml));
  assert.equal(r.outcome, "OK", JSON.stringify(r.issues));
  return r.payload;
}

Deno.test("xml: the payload is the root's content; leaves are text, repeats are lists", async () => {
  assert.deepEqual(
    await view(`<?xml version="1.0"?>
<order xmlns="urn:x" xmlns:p="urn:p">
  <id>A-1</id>
  <p:item>one</p:item>
  <p:item>two</p:item>
  <empty/>
  <spaced>  kept as written  </spaced>
  <nested><deeper><leaf>x</leaf></deeper></nested>
</order>`),
    {
      id: "A-1",
      item: ["one", "two"],
      empty: "",
      spaced: "  kept as written  ",
      nested: { deeper: { leaf: "x" } },
    },
  );
});

Deno.test("xml: attributes and text become keys; a child wins a name, the rest give way", async () => {
  assert.deepEqual(
    await view(`<r>
  <amount currency="EUR">12.50</amount>
  <odd value="attr">text<value>child</value></odd>
  <clash id="attr"><id>child</id></clash>
  <n xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"/>
  <typed xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="x">plain</typed>
  <cdata><![CDATA[<not markup>]]></cdata>
  <__proto__>safe</__proto__>
</r>`),
    {
      amount: { currency: "EUR", value: "12.50" },
      odd: { "@value": "attr", value: "child", "#text": "text" },
      clash: { "@id": "attr", id: "child" },
      n: null,
      typed: "plain",
      cdata: "<not markup>",
      ["__proto__"]: "safe",
    },
  );
});

Deno.test("xml: malformed documents are FATAL with line and column", async () => {
  const cases: [string, string, number][] = [
    ["<a>\n  <b>\n</a>", "SUTRA.PARSE.XML.MALFORMED", 3],
    ["<a x='1' x='2'/>", "SUTRA.PARSE.XML.MALFORMED", 1],
    ["", "SUTRA.PARSE.XML.MALFORMED", 1],
    ["<a/><b/>", "SUTRA.PARSE.XML.MALFORMED", 1],
    ['<!DOCTYPE a [<!ENTITY e "boom">]>\n<a>&e;</a>', "SUTRA.PARSE.XML.DOCTYPE_FORBIDDEN", 1],
    ["<a>&undefined;</a>", "SUTRA.PARSE.XML.MALFORMED", 1],
  ];
  for (const [doc, code, line] of cases) {
    const r = await xmlCodec.decode(bytes(doc));
    assert.equal(r.outcome, "FATAL", doc);
    assert.equal(r.issues[0].code, code, doc);
    assert.equal(r.issues[0].line, line, doc);
    assert.ok(r.issues[0].column! >= 1);
  }
  const deep = await xmlCodec.decode(bytes("<a>".repeat(600) + "</a>".repeat(600)));
  assert.equal(deep.issues[0].code, "SUTRA.PARSE.XML.TOO_DEEP");
});

Deno.test("xml: the declared encoding is honoured", async () => {
  const latin1 = new Uint8Array([
    ...bytes('<?xml version="1.0" encoding="ISO-8859-1"?><a>caf'),
    0xe9,
    ...bytes("</a>"),
  ]);
  assert.equal((await xmlCodec.decode(latin1)).payload, "café");
  const wrong = await xmlCodec.decode(bytes("<a/>"), "application/json");
  assert.equal(wrong.issues[0].code, "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED");
});

Deno.test("xml: replies are written from the view back to elements", async () => {
  const r = await xmlCodec.encode(
    { "@id": "7", amount: { "@currency": "EUR", "#text": "1.5" }, item: ["a", "b"], none: null },
    { messageType: "Receipt" },
  );
  assert.ok(r.ok);
  const written = new TextDecoder().decode(r.bytes);
  assert.match(written, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Receipt /);
  const back = await xmlCodec.decode(r.bytes);
  assert.deepEqual(back.payload, {
    id: "7",
    amount: { currency: "EUR", value: "1.5" },
    item: ["a", "b"],
    none: null,
  });
  assert.equal((await xmlCodec.encode({})).ok, false);
  const bad = await xmlCodec.encode({ "not a name": 1 }, { messageType: "R" });
  assert.ok(!bad.ok);
  assert.equal(bad.issues[0].path, "/not a name");
});
