import assert from "node:assert/strict";
import { evaluate, FeelContext, FeelDecimal, type FeelValue, fromJs } from "../feel/mod.ts";
import { loadTemplates, type RenderOptions, TemplateCode, type TemplateSet } from "./mod.ts";
import { compileXslt } from "./xslt.ts";

const XSL = 'xmlns:xsl="http://www.w3.org/1999/XSL/Transform"';
const XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"';

function load(key: string, text: string, contentType?: string): TemplateSet {
  const { templates, diagnostics } = loadTemplates([{
    key,
    text,
    uri: `templates/${key}`,
    contentType,
  }]);
  assert.deepEqual(diagnostics, []);
  return templates;
}

function render(
  templates: TemplateSet,
  key: string,
  variables: Record<string, unknown> | FeelContext,
  options?: RenderOptions,
): { body: string; contentType: string } {
  const r = templates.render(key, variables, options);
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r as { body: string; contentType: string };
}

function feel(expression: string): FeelValue {
  const r = evaluate(expression);
  assert.equal(r.diagnostics, undefined);
  return r.value!;
}

const FROM_JSON =
  `<xsl:stylesheet version="3.0" ${XSL} ${XS} exclude-result-prefixes="xs" expand-text="yes">
  <xsl:param name="payload" as="map(*)"/>
  <xsl:param name="fee" as="xs:decimal"/>
  <xsl:output method="xml" omit-xml-declaration="yes"/>
  <xsl:template name="xsl:initial-template">
    <transfer id="{?payload?id}" fee="{$fee}">
      <amount currency="{$payload?amount?currency}">{format-number($payload?amount?value, '0.00')}</amount>
      <total>{$payload?amount?value + $fee}</total>
      <exact>{$payload?amount?value * 3}</exact>
      <booked>{$payload?booked}</booked>
      <valueDate>{year-from-date($payload?valueDate)}</valueDate>
      <note>{$payload?note}</note>
      <xsl:for-each select="$payload?lines?*">
        <line n="{position()}" sku="{?sku}" qty="{?qty}"/>
      </xsl:for-each>
      <empty>{count($payload?missing)}</empty>
    </transfer>
  </xsl:template>
</xsl:stylesheet>`;

Deno.test("XSLT renders XML from a JSON-shaped context: params, the context map, decimals, dates, lists", () => {
  const templates = load("transfer.xsl", FROM_JSON);
  const payload = fromJs({
    id: "T-1",
    amount: { currency: "EUR", value: new FeelDecimal("0.1") },
    note: `Tom & Jerry <"quoted">`,
    lines: [{ sku: "A", qty: 2 }, { sku: "B", qty: new FeelDecimal("1.5") }],
    missing: null,
  }) as FeelContext;
  payload.entries.set("booked", feel('date and time("2024-03-01T10:15:00@Europe/Paris")'));
  payload.entries.set("valueDate", feel('date("2024-03-04")'));
  const { body, contentType } = render(templates, "transfer.xsl", {
    payload,
    fee: new FeelDecimal("0.2"),
  });
  assert.equal(contentType, "application/xml");
  assert.equal(
    body.replace(/\n\s*/g, ""),
    '<transfer id="T-1" fee="0.2">' +
      '<amount currency="EUR">0.10</amount>' +
      "<total>0.3</total>" + // xs:decimal arithmetic: no binary float error
      "<exact>0.3</exact>" +
      "<booked>2024-03-01T10:15:00+01:00</booked>" +
      "<valueDate>2024</valueDate>" +
      '<note>Tom &amp; Jerry &lt;"quoted"&gt;</note>' +
      '<line n="1" sku="A" qty="2"/><line n="2" sku="B" qty="1.5"/>' +
      "<empty>0</empty>" +
      "</transfer>",
  );
});

Deno.test("XSLT renders from an XML payload given as the source document", () => {
  const templates = load(
    "receipt.xslt",
    `<xsl:stylesheet version="3.0" ${XSL} ${XS} exclude-result-prefixes="xs" expand-text="yes">
      <xsl:param name="receivedBy"/>
      <xsl:output method="xml" indent="no"/>
      <xsl:template match="/order">
        <receipt order="{@no}" by="{$receivedBy}">
          <xsl:apply-templates select="line"/>
          <total>{sum(line/@amount ! xs:decimal(.))}</total>
        </receipt>
      </xsl:template>
      <xsl:template match="line"><item>{normalize-space(.)}</item></xsl:template>
    </xsl:stylesheet>`,
  );
  const source = `<?xml version="1.0"?>
<order no="7"><line amount="1.10">Widget &amp; co</line><line amount="2.20"> Gadget </line></order>`;
  const { body } = render(templates, "receipt.xslt", { receivedBy: "desk-3" }, { source });
  assert.equal(
    body.replace(/\n\s*/g, ""),
    '<?xml version="1.0" encoding="UTF-8"?><receipt order="7" by="desk-3">' +
      "<item>Widget &amp; co</item><item>Gadget</item><total>3.3</total></receipt>",
  );
});

Deno.test("without xsl:initial-template the variables map is matched by templates", () => {
  const templates = load(
    "m.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} expand-text="yes">
      <xsl:output method="text"/>
      <xsl:template match=".[. instance of map(*)]">{?greeting}, {?name}!</xsl:template>
    </xsl:stylesheet>`,
  );
  const r = render(templates, "m.xsl", { greeting: "Hello", name: "Ada" });
  assert.deepEqual(r, { body: "Hello, Ada!", contentType: "text/plain; charset=utf-8" });
});

Deno.test("variable names that are not XML names are reachable through the context map only", () => {
  const templates = load(
    "n.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} expand-text="yes">
      <xsl:output method="text"/>
      <xsl:template name="xsl:initial-template">{?('net amount')}</xsl:template>
    </xsl:stylesheet>`,
  );
  assert.equal(render(templates, "n.xsl", { "net amount": 5 }).body, "5");
});

Deno.test("XSLT can emit JSON; content type follows xsl:output, or the caller's declaration", () => {
  const text = `<xsl:stylesheet version="3.0" ${XSL}>
      <xsl:output method="json"/>
      <xsl:template name="xsl:initial-template">
        <xsl:sequence select="map{'id': ?id, 'amount': ?amount, 'tags': array{?tags?*}}"/>
      </xsl:template>
    </xsl:stylesheet>`;
  const templates = load("j.xsl", text);
  const r = render(templates, "j.xsl", {
    id: 'a"b',
    amount: new FeelDecimal("12.50"),
    tags: ["x", "y"],
  });
  assert.equal(r.contentType, "application/json");
  assert.deepEqual(JSON.parse(r.body), { id: 'a"b', amount: 12.5, tags: ["x", "y"] });
  const declared = render(templates, "j.xsl", { id: "1", amount: 1, tags: [] }, {
    contentType: "application/vnd.acme+json",
  });
  assert.equal(declared.contentType, "application/vnd.acme+json");
  const media = load(
    "v.xsl",
    `<xsl:stylesheet version="3.0" ${XSL}><xsl:output media-type="application/vnd.acme+xml"/>
      <xsl:template name="xsl:initial-template"><x/></xsl:template></xsl:stylesheet>`,
  );
  assert.equal(render(media, "v.xsl", {}).contentType, "application/vnd.acme+xml");
  const loaded = load("o.xsl", text, "application/problem+json");
  assert.equal(
    render(loaded, "o.xsl", { id: "1", amount: 1, tags: [] }).contentType,
    "application/problem+json",
  );
});

Deno.test("a stylesheet that is not well-formed XML is a load diagnostic with line and column", () => {
  const { diagnostics, templates } = loadTemplates([{
    key: "broken.xsl",
    uri: "templates/broken.xsl",
    text:
      `<xsl:stylesheet version="3.0" ${XSL}>\n  <xsl:template match="/">\n    <out>\n  </xsl:template>\n</xsl:stylesheet>`,
  }]);
  assert.equal(templates.has("broken.xsl"), false);
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0].code, TemplateCode.COMPILE);
  assert.match(diagnostics[0].message, /not well-formed XML: unexpected close tag/);
  assert.deepEqual(diagnostics[0].source, { uri: "templates/broken.xsl", line: 4, column: 17 });
});

Deno.test("XSLT static errors are load diagnostics with the stylesheet line", () => {
  const { diagnostics } = loadTemplates([
    {
      key: "xpath.xsl",
      text:
        `<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">\n\n  <xsl:value-of select="1 +"/>\n</xsl:template>\n</xsl:stylesheet>`,
    },
    {
      // SaxonJS itself names line 4 here; the quoted XPath pins the start tag on line 3.
      key: "nested.xsl",
      text:
        `<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template name="xsl:initial-template">\n  <reply><xsl:value-of select="?amount +"/></reply>\n</xsl:template>\n</xsl:stylesheet>`,
    },
    {
      key: "instruction.xsl",
      text:
        `<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">\n  <xsl:bogus/>\n</xsl:template>\n</xsl:stylesheet>`,
    },
    {
      key: "include.xsl",
      text:
        `<xsl:stylesheet version="3.0" ${XSL}>\n  <xsl:import href="base.xsl"/>\n</xsl:stylesheet>`,
    },
    {
      key: "latin1.xsl",
      text:
        `<xsl:stylesheet version="3.0" ${XSL}><xsl:output encoding="ISO-8859-1"/></xsl:stylesheet>`,
    },
  ]);
  assert.deepEqual(
    diagnostics.map((d) => [d.code, d.source!.uri, d.source!.line, d.attributes!.xsltCode]),
    [
      [TemplateCode.COMPILE, "xpath.xsl", 4, "XPST0003"],
      [TemplateCode.COMPILE, "nested.xsl", 3, "XPST0003"],
      [TemplateCode.COMPILE, "instruction.xsl", 3, "XTSE0010"],
      [TemplateCode.COMPILE, "include.xsl", 2, undefined],
      [TemplateCode.COMPILE, "latin1.xsl", undefined, undefined],
    ],
  );
  assert.equal(diagnostics[1].source!.column, 43);
  assert.match(diagnostics[2].message, /xsl:bogus is not a known XSLT element/);
  assert.match(
    diagnostics[3].message,
    /xsl:import is not supported: each stylesheet must be self-contained/,
  );
  assert.match(diagnostics[4].message, /bodies are UTF-8 text/);
});

Deno.test("an XSLT dynamic error is a render diagnostic with the line and code, and no body", () => {
  const templates = load(
    "fail.xsl",
    `<xsl:stylesheet version="3.0" ${XSL}>
<xsl:template name="xsl:initial-template">
  <xsl:comment>before the failure</xsl:comment>
  <xsl:sequence select="error(QName('urn:acme', 'LIMIT'), 'over the limit')"/>
</xsl:template>
</xsl:stylesheet>`,
  );
  const r = templates.render("fail.xsl", {});
  assert.equal(r.body, undefined);
  const [d] = r.diagnostics!;
  assert.equal(d.code, TemplateCode.RENDER);
  assert.match(d.message, /over the limit/);
  // SaxonJS attributes a dynamic error to the failing instruction or an enclosing one.
  assert.equal(d.source!.uri, "templates/fail.xsl");
  assert.ok(d.source!.line! >= 2 && d.source!.line! <= 4, `line ${d.source!.line}`);
  assert.deepEqual(d.attributes, { template: "fail.xsl", xsltCode: "LIMIT" });
});

Deno.test("xsl:message terminate stops the render; other messages stay out of the output", () => {
  const templates = load(
    "msg.xsl",
    `<xsl:stylesheet version="3.0" ${XSL}>
      <xsl:output method="text"/>
      <xsl:template name="xsl:initial-template">
        <xsl:message>just noting</xsl:message>
        <xsl:if test="?stop"><xsl:message terminate="yes">stopped on purpose</xsl:message></xsl:if>
        <xsl:text>done</xsl:text>
      </xsl:template>
    </xsl:stylesheet>`,
  );
  assert.equal(render(templates, "msg.xsl", { stop: false }).body, "done");
  const r = templates.render("msg.xsl", { stop: true });
  assert.equal(r.diagnostics![0].code, TemplateCode.RENDER);
  assert.match(r.diagnostics![0].message, /stopped on purpose/);
});

Deno.test("secondary result documents are refused instead of written anywhere", () => {
  const templates = load(
    "rd.xsl",
    `<xsl:stylesheet version="3.0" ${XSL}>
      <xsl:template name="xsl:initial-template">
        <main/>
        <xsl:result-document href="side.xml"><side/></xsl:result-document>
      </xsl:template>
    </xsl:stylesheet>`,
  );
  const r = templates.render("rd.xsl", {});
  assert.equal(r.diagnostics![0].code, TemplateCode.RENDER);
  assert.match(r.diagnostics![0].message, /xsl:result-document \(side\.xml\) is not supported/);
});

Deno.test("a source document that is not well-formed is refused with its position", () => {
  const templates = load(
    "s.xsl",
    `<xsl:stylesheet version="3.0" ${XSL}><xsl:template match="/"><ok/></xsl:template></xsl:stylesheet>`,
  );
  const r = templates.render("s.xsl", {}, { source: "<order>\n<line></order>" });
  assert.equal(r.diagnostics![0].code, TemplateCode.SOURCE_INVALID);
  assert.match(r.diagnostics![0].message, /unexpected close tag\.? \(line 2, column 14\)/);
});

Deno.test("time values, durations and an explicit null reach XSLT typed", () => {
  const templates = load(
    "t.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} ${XS} exclude-result-prefixes="xs" expand-text="yes">
      <xsl:output method="text"/>
      <xsl:template name="xsl:initial-template">{?t instance of xs:time} {?d instance of xs:dayTimeDuration} {?y instance of xs:yearMonthDuration} {?n instance of empty-sequence()} {?dt + ?d} {?b instance of xs:boolean}</xsl:template>
    </xsl:stylesheet>`,
  );
  const vars = fromJs({ n: null, b: true }) as FeelContext;
  vars.entries.set("t", feel('time("10:00:00Z")'));
  vars.entries.set("d", feel('duration("PT1H")'));
  vars.entries.set("y", feel('duration("P2M")'));
  vars.entries.set("dt", feel('date and time("2024-01-01T23:30:00Z")'));
  assert.equal(
    render(templates, "t.xsl", vars).body,
    "true true true true 2024-01-02T00:30:00Z true",
  );
});

Deno.test("a stylesheet's default-mode holds for the variables map and for a source document", () => {
  const templates = load(
    "modes.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} xmlns:m="urn:modes" default-mode="m:main" expand-text="yes">
      <xsl:output method="text"/>
      <xsl:template match=".[. instance of map(*)]">map {?n}</xsl:template>
      <xsl:template match="/order">order {@no}</xsl:template>
      <xsl:template match="." mode="#unnamed">unnamed mode</xsl:template>
    </xsl:stylesheet>`,
  );
  assert.equal(render(templates, "modes.xsl", { n: 1 }).body, "map 1");
  assert.equal(
    render(templates, "modes.xsl", {}, { source: '<order no="7"/>' }).body,
    "order 7",
  );
});

Deno.test("relative references resolve against the template's URI, not where it was compiled", () => {
  const templates = load(
    "base.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} expand-text="yes">
      <xsl:output method="text"/>
      <xsl:template name="xsl:initial-template">{static-base-uri()} {resolve-uri('data.xml', static-base-uri())}</xsl:template>
    </xsl:stylesheet>`,
  );
  assert.equal(
    render(templates, "base.xsl", {}).body,
    "file:///templates/base.xsl file:///templates/data.xml",
  );
});

Deno.test("global variables see no context item when the render has no source document", () => {
  const templates = load(
    "global.xsl",
    `<xsl:stylesheet version="3.0" ${XSL} expand-text="yes">
      <xsl:param name="n"/>
      <xsl:variable name="fromParam" select="$n * 2"/>
      <xsl:variable name="fromContext" select="?n"/>
      <xsl:output method="text"/>
      <xsl:template name="xsl:initial-template">{$fromParam}<xsl:if test="?ctx">{$fromContext}</xsl:if></xsl:template>
    </xsl:stylesheet>`,
  );
  assert.equal(render(templates, "global.xsl", { n: 2, ctx: false }).body, "4");
  const r = templates.render("global.xsl", { n: 2, ctx: true });
  assert.equal(r.diagnostics![0].code, TemplateCode.RENDER);
  assert.equal(r.diagnostics![0].attributes!.xsltCode, "XPDY0002");
});

Deno.test({
  name: "XSLT compiles in process: no permission to run programs, read or write files",
  permissions: { read: false, write: false, env: false, net: false, run: false },
  fn() {
    const text =
      `<xsl:stylesheet version="3.0" ${XSL}><xsl:output method="text"/><xsl:template name="xsl:initial-template"><xsl:value-of select="?n * 2"/></xsl:template></xsl:stylesheet>`;
    const first = loadTemplates([{ key: "in-process.xsl", text }]);
    assert.deepEqual(first.diagnostics, []);
    assert.equal(render(first.templates, "in-process.xsl", { n: 21 }).body, "42");
  },
});

Deno.test("the same stylesheet text is compiled once and reused", () => {
  const text =
    `<xsl:stylesheet version="3.0" ${XSL}><xsl:template name="xsl:initial-template"><a/></xsl:template></xsl:stylesheet>`;
  const sefOf = (key: string) => compileXslt(key, `templates/${key}`, text).template!.sef;
  assert.equal(sefOf("cached.xsl"), sefOf("cached.xsl"));
});
