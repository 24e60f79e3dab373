import assert from "node:assert/strict";
import { evaluate, FeelContext, FeelDecimal, type FeelValue, fromJs } from "../feel/mod.ts";
import { loadTemplates, type RenderOptions, TemplateCode, type TemplateSource } from "./mod.ts";

/** Loads one template (asserting it compiles) and renders it. */
function render(
  key: string,
  text: string,
  variables: Record<string, unknown> | FeelContext,
  options?: RenderOptions,
): { body: string; contentType: string } {
  const { templates, diagnostics } = loadTemplates([{ key, text }]);
  assert.deepEqual(diagnostics, []);
  const r = templates.render(key, variables, options);
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r as { body: string; contentType: string };
}

/** Builds a FEEL value (temporals especially) through FEEL itself. */
function evaluateFeel(expression: string): FeelValue {
  const r = evaluate(expression);
  assert.equal(r.diagnostics, undefined);
  return r.value!;
}

Deno.test("decimals print their exact digits; `decimal` fixes the scale with half-even rounding", () => {
  const { body } = render(
    "amounts.txt.hbs",
    "{{a}}|{{b}}|{{c}}|{{decimal a 2}}|{{decimal d 1}}|{{decimal e 1}}|{{decimal n 0}}",
    {
      a: new FeelDecimal("1250.5"),
      b: new FeelDecimal("12345678901234567890.123456789012345"),
      c: new FeelDecimal("0.0000001"),
      d: new FeelDecimal("0.25"),
      e: new FeelDecimal("0.35"),
      n: 7,
    },
  );
  assert.equal(body, "1250.5|12345678901234567890.123456789012345|0.0000001|1250.50|0.2|0.4|7");
});

Deno.test("`decimal` rejects a non-number or a bad scale at render, with the call's position", () => {
  const { templates } = loadTemplates([{
    key: "d.txt.hbs",
    text: "line one\n  {{decimal name 2}}",
  }]);
  const r = templates.render("d.txt.hbs", { name: "abc" });
  assert.equal(r.body, undefined);
  const [d] = r.diagnostics!;
  assert.equal(d.code, TemplateCode.RENDER);
  assert.match(d.message, /decimal: needs a number, got "abc"/);
  assert.deepEqual(d.source, { uri: "d.txt.hbs", line: 2, column: 3 });
  assert.equal(templates.render("d.txt.hbs", { name: 1 }).body, "line one\n  1.00");
  const bad = loadTemplates([{ key: "s.txt.hbs", text: "{{decimal x 1.5}}" }]).templates;
  assert.match(
    bad.render("s.txt.hbs", { x: 1 }).diagnostics![0].message,
    /scale must be a whole number/,
  );
});

Deno.test("dates, times, date-times and durations print as ISO-8601", () => {
  const vars = fromJs({}) as FeelContext;
  const exprs: Record<string, string> = {
    d: 'date("2024-02-29")',
    dt: 'date and time("2024-03-01T10:15:30.5+01:00")',
    utc: 'date and time("2024-03-01T10:15:30Z")',
    zoned: 'date and time("2024-03-01T10:15:30@Europe/Paris")',
    t: 'time("23:59:00")',
    dur: 'duration("P1DT2H30M")',
    ym: 'duration("P1Y2M")',
  };
  for (const [k, e] of Object.entries(exprs)) vars.entries.set(k, evaluateFeel(e));
  const { body } = render(
    "when.txt.hbs",
    "{{d}} {{dt}} {{utc}} {{zoned}} {{t}} {{dur}} {{ym}}",
    vars,
  );
  assert.equal(
    body,
    "2024-02-29 2024-03-01T10:15:30.5+01:00 2024-03-01T10:15:30Z 2024-03-01T10:15:30@Europe/Paris 23:59:00 P1DT2H30M P1Y2M",
  );
});

Deno.test("nested contexts and lists: paths, #each with @index/@key, #with, lookup", () => {
  const { body } = render(
    "order.txt.hbs",
    "{{payload.customer.name}};{{#each payload.lines}}{{@index}}:{{sku}}x{{qty}},{{/each}};" +
      "{{#with payload.customer}}{{address.city}}{{/with}};{{#each payload.tags}}[{{this}}]{{/each}};" +
      "{{#each payload.customer.address}}{{@key}}={{this}} {{/each}};{{lookup payload.lines.[1] 'sku'}}",
    {
      payload: {
        customer: { name: "Ada", address: { city: "London", zip: "N1" } },
        lines: [{ sku: "A", qty: 2 }, { sku: "B", qty: 1.5 }],
        tags: ["x", "y"],
      },
    },
  );
  assert.equal(body, "Ada;0:Ax2,1:Bx1.5,;London;[x][y];city=London zip=N1 ;B");
});

Deno.test("XML escaping: values are escaped, triple-stash is raw, xml-escape is not escaped twice", () => {
  const { body, contentType } = render(
    "r.xml.hbs",
    '<r a="{{v}}">{{v}}|{{{raw}}}|{{xml-escape v}}|{{json obj}}</r>',
    { v: `<a & "b" 'c'>`, raw: "<b/>", obj: { k: "<&>" } },
  );
  assert.equal(contentType, "application/xml");
  assert.equal(
    body,
    '<r a="&lt;a &amp; &quot;b&quot; &#x27;c&#x27;&gt;">&lt;a &amp; &quot;b&quot; &#x27;c&#x27;&gt;|<b/>|' +
      "&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;|{&quot;k&quot;:&quot;&lt;&amp;&gt;&quot;}</r>",
  );
});

Deno.test('JSON escaping: `"{{v}}"` stays valid JSON whatever v holds; json emits structure', () => {
  const v = 'quote " backslash \\ newline \n tab \t <tag> é';
  const { body, contentType } = render(
    "r.json.hbs",
    '{"v": "{{v}}", "n": {{n}}, "obj": {{json obj}}, "list": {{json list}}, "x": "{{xml-escape v}}"}',
    { v, n: new FeelDecimal("0.1"), obj: { a: [1, null, true] }, list: ["a", 2] },
  );
  assert.equal(contentType, "application/json");
  assert.deepEqual(JSON.parse(body), {
    v,
    n: 0.1,
    obj: { a: [1, null, true] },
    list: ["a", 2],
    x: "quote &quot; backslash \\ newline \n tab \t &lt;tag&gt; é",
  });
});

Deno.test("parent paths work inside blocks over strings, and a context prints as FEEL text", () => {
  const { body } = render(
    "parents.txt.hbs",
    "{{#each tags}}{{../prefix}}{{this}} {{/each}}|{{#each lines}}{{../payload.id}}/{{sku}} {{/each}}|{{payload}}",
    { prefix: "#", tags: ["a", "b"], lines: [{ sku: "X" }], payload: { id: "P", n: 1 } },
  );
  assert.equal(body, '#a #b |P/X |{id: "P", n: 1}');
});

Deno.test("JSON escaping also applies inside blocks and inline partials", () => {
  const { body } = render(
    "b.json.hbs",
    '{{#*inline "q"}}"{{this}}"{{/inline}}[{{#each list}}{{> q}}{{#unless @last}}, {{/unless}}{{/each}}]',
    { list: ['a"b', "c\\d"] },
  );
  assert.deepEqual(JSON.parse(body), ['a"b', "c\\d"]);
});

Deno.test("json writes exact decimals, ISO temporals and contexts in entry order", () => {
  const vars = fromJs({ big: new FeelDecimal("1234567890.12345678901234567890") }) as FeelContext;
  vars.entries.set("when", evaluateFeel('date("2024-01-31")'));
  vars.entries.set("ctx", fromJs({ z: 1, a: 2 }));
  const { body } = render(
    "j.json.hbs",
    "[{{json big}}, {{json when}}, {{json ctx}}, {{json missing}}]",
    vars,
  );
  assert.equal(body, '[1234567890.1234567890123456789, "2024-01-31", {"z":1,"a":2}, null]');
});

Deno.test("plain text templates insert values unescaped", () => {
  const { body, contentType } = render("note.hbs", "{{v}} & {{json v}}", { v: `<"a">` });
  assert.equal(contentType, "text/plain; charset=utf-8");
  assert.equal(body, `<"a"> & "<\\"a\\">"`);
});

Deno.test("the declared content type decides escaping: q:reply's type wins over the file's", () => {
  const { templates } = loadTemplates([{ key: "transfer-result.hbs", text: "<r>{{v}}</r>" }]);
  assert.equal(templates.render("transfer-result.hbs", { v: "a&b" }).body, "<r>a&b</r>");
  const xml = templates.render("transfer-result.hbs", { v: "a&b" }, {
    contentType: "application/xml",
  });
  assert.deepEqual(xml, { body: "<r>a&amp;b</r>", contentType: "application/xml" });
  const vendor = templates.render("transfer-result.hbs", { v: "<" }, {
    contentType: "application/vnd.acme+xml; charset=utf-8",
  });
  assert.equal(vendor.body, "<r>&lt;</r>");
});

Deno.test("equality and comparison helpers follow FEEL: 1.0 = 1, dates compare, mismatches are false", () => {
  const vars = fromJs({ amount: new FeelDecimal("1.0"), status: "OK", items: [] }) as FeelContext;
  vars.entries.set("due", evaluateFeel('date("2024-03-01")'));
  vars.entries.set("limit", evaluateFeel('date("2024-02-01")'));
  const text = [
    "{{#if (eq amount 1)}}eq{{/if}}",
    "{{#if (ne status 'OK')}}ne{{else}}not-ne{{/if}}",
    "{{#if (gt due limit)}}late{{/if}}",
    "{{#if (lt amount 'x')}}bad{{else}}incomparable{{/if}}",
    "{{#if (and (ge amount 1) (le amount 1))}}between{{/if}}",
    "{{#if (or false (not items))}}empty{{/if}}",
  ].join(",");
  assert.equal(render("c.txt.hbs", text, vars).body, "eq,not-ne,late,incomparable,between,empty");
});

Deno.test("if/unless treat a FEEL zero, an empty string and an empty list as false", () => {
  const { body } = render(
    "z.txt.hbs",
    "{{#if zero}}Z{{else}}no-zero{{/if}} {{#if one}}one{{/if}} {{#unless empty}}blank{{/unless}} {{#if list}}L{{else}}no-list{{/if}}",
    { zero: new FeelDecimal(0), one: 1, empty: "", list: [] },
  );
  assert.equal(body, "no-zero one blank no-list");
});

Deno.test("a helper called with the wrong number of arguments fails the render", () => {
  const { templates } = loadTemplates([{ key: "a.txt.hbs", text: "{{eq a}}" }]);
  const r = templates.render("a.txt.hbs", { a: 1 });
  assert.match(r.diagnostics![0].message, /eq: takes 2 arguments, got 1/);
});

Deno.test("an unknown helper is a load diagnostic with file and line", () => {
  const { templates, diagnostics } = loadTemplates([
    {
      key: "bad.xml.hbs",
      text: "<a>\n  {{formatMoney amount}}\n</a>",
      uri: "templates/bad.xml.hbs",
    },
  ]);
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0].code, TemplateCode.COMPILE);
  assert.match(diagnostics[0].message, /unknown helper formatMoney/);
  assert.deepEqual(diagnostics[0].source, { uri: "templates/bad.xml.hbs", line: 2, column: 3 });
  assert.equal(templates.has("bad.xml.hbs"), false);
});

Deno.test("syntax errors and block mismatches are load diagnostics with the line", () => {
  const { diagnostics } = loadTemplates([
    { key: "open.hbs", text: "a\nb\n{{#if x}}\nno end" },
    { key: "mismatch.hbs", text: "x\n{{#if a}}y{{/each}}" },
  ]);
  assert.deepEqual(diagnostics.map((d) => [d.code, d.source!.uri, d.source!.line]), [
    [TemplateCode.COMPILE, "open.hbs", 4],
    [TemplateCode.COMPILE, "mismatch.hbs", 2],
  ]);
  assert.match(diagnostics[0].message, /syntax error: Expecting .*got 'EOF'/);
  assert.match(diagnostics[1].message, /if doesn't match each$/);
});

Deno.test("a body that breaks its content type is refused, never returned half right", () => {
  const { templates } = loadTemplates([
    { key: "raw.json.hbs", text: '{"v": {{{v}}} }' },
    { key: "raw.xml.hbs", text: "<a>{{{v}}}</a>" },
  ]);
  const json = templates.render("raw.json.hbs", { v: "not json" });
  assert.equal(json.body, undefined);
  assert.equal(json.diagnostics![0].code, TemplateCode.INVALID_OUTPUT);
  const xml = templates.render("raw.xml.hbs", { v: "<b>" });
  assert.equal(xml.diagnostics![0].code, TemplateCode.INVALID_OUTPUT);
  assert.match(xml.diagnostics![0].message, /not well-formed XML/);
  assert.equal(templates.render("raw.xml.hbs", { v: "<b/>" }).body, "<a><b/></a>");
});

Deno.test("partials: every .hbs of the set is a partial named by its key without .hbs", () => {
  const sources: TemplateSource[] = [
    {
      key: "invoice.json.hbs",
      text:
        '{"party": {{> common/party.json who=buyer}}, "lines": [{{#each lines}}{{#unless @first}},{{/unless}}{{> line}}{{/each}}]}',
    },
    { key: "common/party.json.hbs", text: '{"name": "{{who.name}}"}' },
    { key: "line.hbs", text: '{"sku": "{{sku}}"}', contentType: "application/json" },
  ];
  const { templates, diagnostics } = loadTemplates(sources);
  assert.deepEqual(diagnostics, []);
  const r = templates.render("invoice.json.hbs", {
    buyer: { name: 'A "quoted" buyer' },
    lines: [{ sku: "X" }, { sku: "Y" }],
  });
  assert.deepEqual(JSON.parse(r.body!), {
    party: { name: 'A "quoted" buyer' },
    lines: [{ sku: "X" }, { sku: "Y" }],
  });
});

Deno.test("partials escape for the family of the template that includes them", () => {
  const { templates } = loadTemplates([
    { key: "outer.hbs", text: "[{{> inner}}]" },
    { key: "inner.hbs", text: "{{v}}" },
  ]);
  const v = { v: `"<` };
  assert.equal(templates.render("outer.hbs", v).body, `["<]`);
  assert.equal(templates.render("outer.hbs", v, { contentType: "text/html" }).body, "[&quot;&lt;]");
  assert.equal(
    templates.render("outer.hbs", v, { contentType: "text/x-json+json" }).diagnostics![0].code,
    TemplateCode.INVALID_OUTPUT,
  );
});

Deno.test("a partial no template provides is a load diagnostic; inline partials count as provided", () => {
  const { diagnostics } = loadTemplates([
    {
      key: "page.hbs",
      text:
        '{{#*inline "local"}}x{{/inline}}{{> local}}\n  {{> missing/part}}\n{{#> layout}}fallback{{/layout}}',
      uri: "templates/page.hbs",
    },
  ]);
  assert.equal(diagnostics.length, 1);
  assert.equal(diagnostics[0].code, TemplateCode.UNKNOWN_PARTIAL);
  assert.deepEqual(diagnostics[0].source, { uri: "templates/page.hbs", line: 2, column: 3 });
  assert.equal(diagnostics[0].attributes!.partial, "missing/part");
});

Deno.test("variables may be a FEEL context or plain JS; keys like `constructor` are plain data", () => {
  const ctx = fromJs({ constructor: "data", toString: "also data", n: 2 }) as FeelContext;
  const text = "{{constructor}}|{{toString}}|{{n}}|{{__proto__}}";
  assert.equal(render("p.txt.hbs", text, ctx).body, "data|also data|2|");
  assert.equal(render("p.txt.hbs", text, { n: 2 }).body, "||2|");
});

Deno.test("a Handlebars template takes no XML source document", () => {
  const { templates } = loadTemplates([{ key: "a.hbs", text: "x" }]);
  const r = templates.render("a.hbs", {}, { source: "<a/>" });
  assert.equal(r.diagnostics![0].code, TemplateCode.SOURCE_INVALID);
});
