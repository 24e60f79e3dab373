import assert from "node:assert/strict";
import { loadTemplates, TemplateCode } from "./mod.ts";

const XSLT = `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:template name="xsl:initial-template"><ok/></xsl:template>
</xsl:stylesheet>`;

Deno.test("the extension picks the engine; keys, has and describe report what compiled", () => {
  const { templates, diagnostics } = loadTemplates([
    { key: "a.hbs", text: "x" },
    { key: "eu/invoices/b.xsl", text: XSLT },
    { key: "c.XSLT", text: XSLT },
    { key: "d.json.hbs", text: "{}" },
  ]);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(templates.keys(), ["a.hbs", "eu/invoices/b.xsl", "c.XSLT", "d.json.hbs"]);
  assert.equal(templates.has("a.hbs"), true);
  assert.equal(templates.has("a"), false);
  assert.deepEqual(templates.describe("a.hbs"), {
    engine: "handlebars",
    contentType: "text/plain; charset=utf-8",
  });
  assert.deepEqual(templates.describe("eu/invoices/b.xsl"), {
    engine: "xslt",
    contentType: "application/xml",
  });
  assert.deepEqual(templates.describe("d.json.hbs")!.contentType, "application/json");
  assert.equal(templates.describe("nope"), undefined);
});

Deno.test("every loading problem is reported, and the good templates stay usable", () => {
  const { templates, diagnostics } = loadTemplates([
    { key: "ok.hbs", text: "fine" },
    { key: "ok.hbs", text: "again", uri: "templates/copy/ok.hbs" },
    { key: "notes.md", text: "# no" },
    { key: "broken.hbs", text: "{{#each}}" },
    { key: "broken.xsl", text: "<xsl:stylesheet" },
  ]);
  assert.deepEqual(diagnostics.map((d) => [d.code, d.source!.uri]), [
    [TemplateCode.DUPLICATE_KEY, "templates/copy/ok.hbs"],
    [TemplateCode.UNSUPPORTED, "notes.md"],
    [TemplateCode.COMPILE, "broken.hbs"],
    [TemplateCode.COMPILE, "broken.xsl"],
  ]);
  assert.ok(
    diagnostics.every((d) => d.severity === "ERROR" && d.attributes!.template !== undefined),
  );
  assert.deepEqual(templates.render("ok.hbs", {}), {
    body: "fine",
    contentType: "text/plain; charset=utf-8",
  });
});

Deno.test("rendering an unknown key is a diagnostic naming the known keys", () => {
  const { templates } = loadTemplates([{ key: "a.hbs", text: "x" }]);
  const r = templates.render("b.hbs", {});
  assert.equal(r.body, undefined);
  assert.equal(r.diagnostics![0].code, TemplateCode.UNKNOWN);
  assert.match(r.diagnostics![0].message, /no template 'b\.hbs' is loaded \(known: a\.hbs\)/);
  assert.equal(
    loadTemplates([]).templates.render("x.hbs", {}).diagnostics![0].message,
    "no template 'x.hbs' is loaded",
  );
});

Deno.test("variables that are not an object are a render diagnostic, not a throw", () => {
  const { templates } = loadTemplates([{ key: "a.hbs", text: "x" }]);
  const r = templates.render("a.hbs", "nope" as unknown as Record<string, unknown>);
  assert.equal(r.diagnostics![0].code, TemplateCode.RENDER);
  assert.match(r.diagnostics![0].message, /must be an object/);
});

Deno.test("HTML bodies are escaped but not checked as XML", () => {
  const { templates } = loadTemplates([{ key: "p.html.hbs", text: "<p>{{v}}<br></p>" }]);
  assert.deepEqual(templates.render("p.html.hbs", { v: "<b>" }), {
    body: "<p>&lt;b&gt;<br></p>",
    contentType: "text/html; charset=utf-8",
  });
});
