/**
 * Renders per second of a 20-field reply, for Handlebars (JSON and XML
 * bodies) and XSLT (XML body), each against a physical baseline measured in
 * the same run: `JSON.stringify` of the same 20 fields for the JSON body, a
 * hand-written escaped string concatenation for the XML bodies.
 *
 * The XSLT stylesheet is compiled once at load, in process, by SaxonJS's own
 * compiler; a render is one `SaxonJS.XPath.evaluate` building the variables
 * as XDM values plus one `SaxonJS.transform` of the compiled stylesheet. The
 * load is timed too.
 *
 *     deno run -P=bench bench/templates_bench.ts [N]
 *
 * Prints one JSON line per case:
 * `{"bench":…,"rendersPerSec":…,"baseline":…,"baselineOpsPerSec":…,"ratio":…}`,
 * and `{"bench":"templates.xslt.compile","msPerStylesheet":…}` for the load.
 *
 * @module
 */
import { evaluate, FeelContext, type FeelValue, fromJs } from "../lang/feel/mod.ts";
import { loadTemplates, type TemplateSet } from "../lang/templates/mod.ts";

const FIELDS = [
  "transferId",
  "endToEndId",
  "status",
  "reasonCode",
  "debtorName",
  "debtorAccount",
  "creditorName",
  "creditorAccount",
  "currency",
  "amount",
  "fee",
  "total",
  "valueDate",
  "bookedAt",
  "channel",
  "priority",
  "reference",
  "remittance",
  "attempt",
  "approved",
] as const;

function feel(expression: string): FeelValue {
  const r = evaluate(expression);
  if (r.diagnostics !== undefined) throw new Error(r.diagnostics[0].message);
  return r.value;
}

/** The reply's variables as the engine holds them: a FEEL context. */
function variables(): FeelContext {
  return fromJs({
    transferId: "T-000123",
    endToEndId: "E2E-2024-03-01-0001",
    status: "ACCEPTED",
    reasonCode: "OK",
    debtorName: "Ada Lovelace & Co",
    debtorAccount: "DE89370400440532013000",
    creditorName: 'Charles "Babbage" Ltd',
    creditorAccount: "GB29NWBK60161331926819",
    currency: "EUR",
    amount: feel("1250.75"),
    fee: feel("2.50"),
    total: feel("1253.25"),
    valueDate: feel('date("2024-03-01")'),
    bookedAt: feel('date and time("2024-03-01T10:15:30Z")'),
    channel: "http",
    priority: "NORMAL",
    reference: "INV-4411 <march>",
    remittance: "Invoice 4411, March services",
    attempt: 1,
    approved: true,
  }) as FeelContext;
}

/** The same reply as plain JS, for the baselines. */
function plain(vars: FeelContext): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of vars.entries) {
    out[k] = typeof v === "string" || typeof v === "boolean" ? v : String(fromFeelText(v));
  }
  return out;
}

function fromFeelText(v: FeelValue): string {
  const r = evaluate("string(v)", { v });
  return r.value as string;
}

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};
const esc = (s: string | number | boolean) => String(s).replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);

function rate(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 2_000); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return Math.round(iterations / ((performance.now() - t0) / 1000));
}

const iterations = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 20_000);
const vars = variables();
const js = plain(vars);
let sink = 0;

// The space before the closing brace keeps `}}}` from reading as a triple-stash close.
const hbsJson = `{${FIELDS.map((f) => `"${f}": {{json ${f}}}`).join(", ")} }`;
const hbsXml = `<reply>${FIELDS.map((f) => `<${f}>{{${f}}}</${f}>`).join("")}</reply>`;
const xsl = `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" omit-xml-declaration="yes"/>
  ${FIELDS.map((f) => `<xsl:param name="${f}"/>`).join("\n  ")}
  <xsl:template name="xsl:initial-template">
    <reply>${FIELDS.map((f) => `<${f}><xsl:value-of select="$${f}"/></${f}>`).join("")}</reply>
  </xsl:template>
</xsl:stylesheet>`;

const t0 = performance.now();
const xslt = loadTemplates([{ key: "reply.xsl", text: xsl }]);
const compileMs = performance.now() - t0;
const { templates, diagnostics } = loadTemplates([
  { key: "reply.json.hbs", text: hbsJson },
  { key: "reply.xml.hbs", text: hbsXml },
]);
diagnostics.push(...xslt.diagnostics);
if (diagnostics.length > 0) throw new Error(diagnostics.map((d) => d.message).join("; "));

function renderer(set: TemplateSet, key: string): () => void {
  return () => {
    const r = set.render(key, vars);
    if (r.body === undefined) throw new Error(r.diagnostics[0].message);
    sink += r.body.length;
  };
}

const xmlBaseline = () => {
  let s = "<reply>";
  for (const f of FIELDS) s += `<${f}>${esc(js[f])}</${f}>`;
  sink += (s + "</reply>").length;
};
const jsonBaseline = () => {
  sink += JSON.stringify(js).length;
};

const cases: [string, () => void, string, () => void, number][] = [
  [
    "templates.handlebars.json-20-fields",
    renderer(templates, "reply.json.hbs"),
    "JSON.stringify",
    jsonBaseline,
    iterations,
  ],
  [
    "templates.handlebars.xml-20-fields",
    renderer(templates, "reply.xml.hbs"),
    "string concatenation",
    xmlBaseline,
    iterations,
  ],
  // XSLT renders are dozens of times slower than Handlebars; fewer iterations keep the run short.
  [
    "templates.xslt.xml-20-fields",
    renderer(xslt.templates, "reply.xsl"),
    "string concatenation",
    xmlBaseline,
    Math.ceil(iterations / 10),
  ],
];
for (const [bench, fn, baseline, base, n] of cases) {
  const renders = rate(n, fn);
  const baselineOps = rate(iterations, base);
  console.log(JSON.stringify({
    bench,
    rendersPerSec: renders,
    baseline,
    baselineOpsPerSec: baselineOps,
    ratio: +(renders / baselineOps).toFixed(4),
  }));
}
console.log(JSON.stringify({
  bench: "templates.xslt.compile",
  msPerStylesheet: Math.round(compileMs),
}));
if (sink < 0) console.log(sink);
