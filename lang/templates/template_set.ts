/**
 * A set of templates loaded together (one deployment's `templates/` or
 * `scripts/` folder) and rendered by key:
 * `render(key, variables) → { body, contentType }`.
 *
 * Loading compiles every template and reports every one that does not
 * compile. Rendering either returns a whole body that matches its content
 * type (JSON bodies parse, XML bodies are well-formed) or diagnostics,
 * never a partial body.
 *
 * @module
 */
import { FeelContext, fromJs } from "../feel/mod.ts";
import {
  contentTypeFromName,
  DEFAULT_TEXT_TYPE,
  familyOf,
  isXml,
  mediaType,
} from "./content_type.ts";
import { TemplateCode, type TemplateDiagnostic, templateError } from "./diagnostic.ts";
import { HandlebarsEngine, HandlebarsTemplate, partialName } from "./handlebars.ts";
import { compileXslt } from "./xslt.ts";
import type { CompiledTemplate, TemplateEngine } from "./_template.ts";
import { xmlProblem } from "./_xml.ts";

/** One template file to load. */
export interface TemplateSource {
  /**
   * The key templates are rendered by, normally the path under the
   * artifact folder (`transfer-result.hbs`, `eu/invoice.xsl`). Its extension
   * picks the engine: `.hbs` Handlebars, `.xsl`/`.xslt` XSLT.
   */
  readonly key: string;
  /** The template text. */
  readonly text: string;
  /** The file or URN for diagnostics; defaults to the key. */
  readonly uri?: string;
  /**
   * The content type the template produces, overriding what the file
   * implies (`reply.json.hbs`, `xsl:output`). Also decides Handlebars'
   * escaping.
   */
  readonly contentType?: string;
}

/** The variables a template renders: a plain JS object or a FEEL context. */
export type TemplateVariables = FeelContext | Readonly<Record<string, unknown>>;

/** Options for {@link TemplateSet.render}. */
export interface RenderOptions {
  /** The content type to declare (e.g. `q:reply contentType`); overrides the template's own. */
  readonly contentType?: string;
  /** An XML document for an XSLT template to transform instead of the variables map. */
  readonly source?: string;
}

/** A rendered body, or why there is none. */
export type RenderResult =
  | { readonly body: string; readonly contentType: string; readonly diagnostics?: undefined }
  | {
    readonly body?: undefined;
    readonly contentType?: undefined;
    readonly diagnostics: TemplateDiagnostic[];
  };

/** What {@link loadTemplates} returns: the set, and every problem found while loading. */
export interface LoadResult {
  /** The templates that compiled. */
  readonly templates: TemplateSet;
  /** Empty when everything compiled; a deployment should be refused otherwise. */
  readonly diagnostics: TemplateDiagnostic[];
}

/** Templates compiled at load, rendered by key. */
export class TemplateSet {
  readonly #templates: ReadonlyMap<string, CompiledTemplate>;

  /** Built by {@link loadTemplates}. */
  constructor(templates: ReadonlyMap<string, CompiledTemplate>) {
    this.#templates = templates;
  }

  /** Keys of the templates that compiled, in load order. */
  keys(): string[] {
    return [...this.#templates.keys()];
  }

  /** Whether `key` was loaded and compiled. */
  has(key: string): boolean {
    return this.#templates.has(key);
  }

  /** The engine and default content type of a template, or undefined for an unknown key. */
  describe(key: string): { engine: TemplateEngine; contentType: string } | undefined {
    const t = this.#templates.get(key);
    return t === undefined ? undefined : { engine: t.engine, contentType: t.contentType };
  }

  /**
   * Renders the template `key` with `variables`. Never throws: an unknown
   * key, a failing helper, an XSLT error or a body that does not match its
   * content type comes back as diagnostics.
   *
   * @example
   * ```ts
   * const r = templates.render("transfer-result.hbs", { payload }, { contentType: "application/xml" });
   * if (r.diagnostics) throw new Error(r.diagnostics[0].message);
   * r.body; r.contentType;
   * ```
   */
  render(key: string, variables: TemplateVariables, options: RenderOptions = {}): RenderResult {
    const template = this.#templates.get(key);
    if (template === undefined) {
      return {
        diagnostics: [templateError(
          TemplateCode.UNKNOWN,
          `no template '${key}' is loaded${
            this.#templates.size === 0 ? "" : ` (known: ${this.keys().join(", ")})`
          }`,
          undefined,
          { template: key },
        )],
      };
    }
    try {
      const contentType = options.contentType ?? template.contentType;
      const context = variables instanceof FeelContext ? variables : fromJs(variables);
      if (!(context instanceof FeelContext)) {
        return failure(template, TemplateCode.RENDER, "the variables must be an object");
      }
      const outcome = template.render({ variables: context, contentType, source: options.source });
      if (outcome.diagnostics !== undefined) return outcome;
      const invalid = checkBody(outcome.body, contentType);
      if (invalid !== undefined) return failure(template, TemplateCode.INVALID_OUTPUT, invalid);
      return { body: outcome.body, contentType };
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      return failure(template, TemplateCode.RENDER, `unexpected failure: ${reason}`);
    }
  }
}

/**
 * Compiles templates. Every template that does not compile, uses an
 * unsupported extension, repeats a key or names a missing partial is
 * reported with its file (and line where the engine gives one).
 *
 * @example
 * ```ts
 * const { templates, diagnostics } = loadTemplates([
 *   { key: "reply.json.hbs", text: '{"id": {{json id}} }' },
 * ]);
 * templates.render("reply.json.hbs", { id: "A-1" }); // { body: '{"id": "A-1" }', contentType: "application/json" }
 * ```
 */
export function loadTemplates(sources: Iterable<TemplateSource>): LoadResult {
  const compiled = new Map<string, CompiledTemplate>();
  const diagnostics: TemplateDiagnostic[] = [];
  const handlebars = new HandlebarsEngine();
  const seen = new Set<string>();
  for (const source of sources) {
    const uri = source.uri ?? source.key;
    if (seen.has(source.key)) {
      diagnostics.push(templateError(
        TemplateCode.DUPLICATE_KEY,
        `template key '${source.key}' is loaded twice`,
        { uri },
        { template: source.key },
      ));
      continue;
    }
    seen.add(source.key);
    const result = compileOne(source, uri, handlebars);
    if (result.diagnostics !== undefined) diagnostics.push(...result.diagnostics);
    else compiled.set(source.key, result.template);
  }
  diagnostics.push(...missingPartials(compiled));
  return { templates: new TemplateSet(compiled), diagnostics };
}

function compileOne(
  source: TemplateSource,
  uri: string,
  handlebars: HandlebarsEngine,
): { template: CompiledTemplate; diagnostics?: undefined } | {
  template?: undefined;
  diagnostics: TemplateDiagnostic[];
} {
  const extension = /\.([^./]+)$/.exec(source.key)?.[1]?.toLowerCase();
  try {
    if (extension === "hbs") {
      const type = source.contentType ?? contentTypeFromName(source.key) ?? DEFAULT_TEXT_TYPE;
      return handlebars.compile(source.key, uri, source.text, type);
    }
    if (extension === "xsl" || extension === "xslt") {
      return compileXslt(source.key, uri, source.text, { contentType: source.contentType });
    }
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return {
      diagnostics: [templateError(
        TemplateCode.COMPILE,
        `${source.key} does not compile: ${reason}`,
        { uri },
        { template: source.key },
      )],
    };
  }
  return {
    diagnostics: [templateError(
      TemplateCode.UNSUPPORTED,
      `'${source.key}' is not a template: use .hbs (Handlebars), .xsl or .xslt (XSLT)`,
      { uri },
      { template: source.key },
    )],
  };
}

function missingPartials(compiled: ReadonlyMap<string, CompiledTemplate>): TemplateDiagnostic[] {
  const names = new Set<string>();
  for (const t of compiled.values()) {
    if (t instanceof HandlebarsTemplate) names.add(partialName(t.key));
  }
  const out: TemplateDiagnostic[] = [];
  for (const t of compiled.values()) {
    if (!(t instanceof HandlebarsTemplate)) continue;
    for (const ref of t.partials) {
      if (names.has(ref.name)) continue;
      out.push(templateError(
        TemplateCode.UNKNOWN_PARTIAL,
        `${t.key} uses the partial '${ref.name}', which no loaded .hbs template provides`,
        { uri: t.uri, line: ref.line, column: ref.column },
        { template: t.key, partial: ref.name },
      ));
    }
  }
  return out;
}

/** Why `body` is not what `contentType` promises, or undefined when it is. */
function checkBody(body: string, contentType: string): string | undefined {
  if (familyOf(contentType) === "json") {
    try {
      JSON.parse(body);
    } catch (e) {
      return `the body is not valid JSON (${e instanceof Error ? e.message : String(e)})`;
    }
    return undefined;
  }
  if (!isXml(mediaType(contentType))) return undefined;
  const p = xmlProblem(body);
  return p === undefined
    ? undefined
    : `the body is not well-formed XML: ${p.message} (line ${p.line}, column ${p.column} of the output)`;
}

function failure(template: CompiledTemplate, code: string, message: string): RenderResult {
  return {
    diagnostics: [templateError(
      code,
      `rendering ${template.key} failed: ${message}`,
      { uri: template.uri },
      { template: template.key },
    )],
  };
}
