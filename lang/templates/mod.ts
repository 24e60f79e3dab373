/**
 * Template rendering behind one call, `render(key, variables) → { body,
 * contentType }`, over two engines: Handlebars for `.hbs` and XSLT 3.0 for
 * `.xsl`/`.xslt`. Usable on its own: it depends only on `lang/feel`.
 *
 * ```ts
 * import { loadTemplates } from "./mod.ts";
 *
 * const { templates, diagnostics } = loadTemplates([
 *   { key: "result.xml.hbs", text: "<result id=\"{{id}}\">{{decimal amount 2}}</result>" },
 * ]);
 * if (diagnostics.length > 0) throw new Error(diagnostics[0].message);
 * const r = templates.render("result.xml.hbs", { id: "A&B", amount: 12.5 });
 * // r.body === '<result id="A&amp;B">12.50</result>', r.contentType === "application/xml"
 * ```
 *
 * @module
 */
export { loadTemplates, TemplateSet } from "./template_set.ts";
export type {
  LoadResult,
  RenderOptions,
  RenderResult,
  TemplateSource,
  TemplateVariables,
} from "./template_set.ts";
export type { TemplateEngine } from "./_template.ts";
export { contentTypeFromName, familyOf } from "./content_type.ts";
export type { Family } from "./content_type.ts";
export { TemplateCode } from "./diagnostic.ts";
export type { Severity, SourceLocation, TemplateDiagnostic } from "./diagnostic.ts";
