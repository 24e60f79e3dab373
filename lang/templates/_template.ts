/**
 * The one interface both template engines implement, so the template set
 * can resolve content types and check output the same way for each.
 *
 * @module
 */
import type { FeelContext } from "../feel/mod.ts";
import type { TemplateDiagnostic } from "./diagnostic.ts";

/** Which engine renders a template. */
export type TemplateEngine = "handlebars" | "xslt";

/** One render call, after the template set resolved its content type. */
export interface RenderRequest {
  /** The variables as a FEEL context. */
  readonly variables: FeelContext;
  /** The content type the body is declared as (decides escaping). */
  readonly contentType: string;
  /** An XML document for an XSLT template to transform. */
  readonly source?: string;
}

/** A body, or why there is none. */
export type RenderOutcome =
  | { readonly body: string; readonly diagnostics?: undefined }
  | { readonly body?: undefined; readonly diagnostics: TemplateDiagnostic[] };

/** A template compiled at load, ready to render many times. */
export interface CompiledTemplate {
  /** The key it is rendered by. */
  readonly key: string;
  /** The file or URN it came from. */
  readonly uri: string;
  /** Which engine renders it. */
  readonly engine: TemplateEngine;
  /** The content type it produces unless a render says otherwise. */
  readonly contentType: string;
  /** Renders; never throws. */
  render(request: RenderRequest): RenderOutcome;
}
