/**
 * XSLT 3.0 templates, compiled at load in this process by SaxonJS's
 * compiler (`_compiler.ts`) and rendered by `SaxonJS.transform` (`_saxon.ts`).
 *
 * What a stylesheet receives:
 * - every variable whose name is an XML name as a stylesheet parameter of
 *   that name (`<xsl:param name="payload"/>`), converted to XDM (contexts
 *   are maps, numbers exact `xs:decimal`, see `_xdm.ts`);
 * - either the XML source document a render passes (templates then start by
 *   matching `/`), or else all variables as one JSON-shaped map
 *   (`?payload?amount`): the context item of `xsl:initial-template` when the
 *   stylesheet has one, otherwise the item templates are applied to.
 *
 * The content type comes from the default `xsl:output` (`media-type`, else
 * the method) unless the caller declares one.
 *
 * @module
 */
import { contentTypeForMethod } from "./content_type.ts";
import {
  type SourceLocation,
  TemplateCode,
  type TemplateDiagnostic,
  templateError,
} from "./diagnostic.ts";
import type { CompiledTemplate, RenderOutcome, RenderRequest } from "./_template.ts";
import {
  asSaxonError,
  buildMap,
  SecondaryResultError,
  type Sef,
  transform,
  type XdmSource,
  type XdmValue,
} from "./_saxon.ts";
import {
  CONTEXT_PARAM,
  ENTRY_FILE,
  ENTRY_TEMPLATE,
  entryModule,
  moduleFileName,
  stylesheetFacts,
  XSL_NS,
} from "./_stylesheet.ts";
import { compileModules, type StaticError } from "./_compiler.ts";
import { toXdm } from "./_xdm.ts";
import { findAttribute, findElements, xmlProblem } from "./_xml.ts";

// Variables whose names are not XML names can only be reached through the context map.
const NCNAME = /^[\p{L}_][\p{L}\p{N}_.\-]*$/u;
const LINE_IN_MESSAGE = /on line (\d+)/;
const LINE_IN_MESSAGE_TEXT = / on line \d+(?: in \S+)?/;
const QUOTED_XPATH = /^Static error in XPath on line \d+(?: in \S+)? \{(.*?)\}: /;
const MODULE_ELEMENTS = new Set(["include", "import"]);

/** Options for {@link compileXslt}. */
export interface XsltCompileOptions {
  /** Overrides the content type the stylesheet's `xsl:output` implies. */
  readonly contentType?: string;
}

/** Compiles a stylesheet; diagnostics (with file and line) when it does not compile. */
export function compileXslt(
  key: string,
  uri: string,
  text: string,
  options: XsltCompileOptions = {},
): { template: XsltTemplate; diagnostics?: undefined } | {
  template?: undefined;
  diagnostics: TemplateDiagnostic[];
} {
  const fail = (message: string, at: Omit<SourceLocation, "uri"> = {}, code?: string) => ({
    diagnostics: [templateError(
      TemplateCode.COMPILE,
      `${key} does not compile: ${message}`,
      { uri, ...at },
      code === undefined ? { template: key } : { template: key, xsltCode: code },
    )],
  });
  // Checked first for exact positions; SaxonJS's parser reports less precisely.
  const problem = xmlProblem(text);
  if (problem !== undefined) {
    return fail(`not well-formed XML: ${problem.message}`, {
      line: problem.line,
      column: problem.column,
    });
  }
  // Another module would be read from the file system, outside the loaded set: refused.
  const [module] = findElements(text, XSL_NS, MODULE_ELEMENTS);
  if (module !== undefined) {
    return fail(
      `xsl:${module.name} is not supported: each stylesheet must be self-contained`,
      { line: module.line, column: module.column },
    );
  }
  const facts = stylesheetFacts(text);
  const file = moduleFileName(uri);
  const compiled = compileModules([
    { file, text },
    { file: ENTRY_FILE, text: entryModule(file, facts) },
  ], ENTRY_FILE);
  if (compiled.error !== undefined) {
    const err = compiled.error;
    // The position goes into the diagnostic's source, where it is exact.
    const message = err.message.replace(LINE_IN_MESSAGE_TEXT, "");
    return fail(message, staticErrorPosition(text, file, err), err.code);
  }
  const encoding = facts.output.get("encoding");
  if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
    return fail(`xsl:output encoding="${encoding}" is not supported: bodies are UTF-8 text`);
  }
  const contentType = options.contentType ?? facts.output.get("media-type") ??
    contentTypeForMethod(facts.output.get("method"));
  return {
    template: new XsltTemplate(key, uri, contentType, compiled.sef, file, facts.initialTemplate),
  };
}

/** A compiled XSLT stylesheet. */
export class XsltTemplate implements CompiledTemplate {
  /** Always `xslt`. */
  readonly engine = "xslt" as const;
  readonly #baseUri: string;

  /** Built by {@link compileXslt}. */
  constructor(
    readonly key: string,
    readonly uri: string,
    readonly contentType: string,
    /** The compiled stylesheet: the entry module importing the template's own module. */
    readonly sef: Sef,
    /** The file name the template's module was compiled under. */
    readonly module: string,
    /** The line of the stylesheet's `xsl:initial-template`, when it has one. */
    readonly initialTemplateLine?: number,
  ) {
    // Relative references in the stylesheet resolve against the template's own URI.
    this.#baseUri = new URL(uri, "file:///").href;
  }

  /** Transforms; a malformed source or a dynamic error is a diagnostic. */
  render(request: RenderRequest): RenderOutcome {
    let context: ReturnType<typeof buildMap>;
    try {
      const entries = new Map<string, XdmSource>();
      for (const [name, value] of request.variables.entries) entries.set(name, toXdm(value));
      context = buildMap(entries);
    } catch (e) {
      return this.#failure(
        TemplateCode.RENDER,
        `a variable has no XDM form: ${asSaxonError(e).message}`,
      );
    }
    const params: Record<string, XdmValue> = {};
    for (const [name, value] of context.values) {
      if (NCNAME.test(name)) params[`Q{}${name}`] = value;
    }
    if (request.source !== undefined) {
      const p = xmlProblem(request.source);
      if (p !== undefined) {
        return this.#failure(
          TemplateCode.SOURCE_INVALID,
          `the source document is not well-formed XML: ${p.message}`,
          `line ${p.line}, column ${p.column}`,
        );
      }
    } else {
      params[CONTEXT_PARAM] = context.map;
    }
    try {
      const body = transform(this.sef, {
        baseUri: this.#baseUri,
        params,
        ...(request.source === undefined
          ? { initialTemplate: ENTRY_TEMPLATE }
          : { source: request.source }),
      });
      return { body };
    } catch (e) {
      if (e instanceof SecondaryResultError) return this.#failure(TemplateCode.RENDER, e.message);
      const err = asSaxonError(e);
      const source: { uri: string; line?: number } = { uri: this.uri };
      if (err.xsltLineNr !== undefined && err.xsltModule === this.module) {
        source.line = Number(err.xsltLineNr);
      } else if (err.xsltModule === ENTRY_FILE && this.initialTemplateLine !== undefined) {
        // SaxonJS may report a failure inside the called xsl:initial-template at the entry module's call.
        source.line = this.initialTemplateLine;
      }
      const code = shortCode(err.code);
      return {
        diagnostics: [templateError(
          TemplateCode.RENDER,
          `rendering ${this.key} failed: ${err.message}`,
          source,
          code === undefined ? { template: this.key } : { template: this.key, xsltCode: code },
        )],
      };
    }
  }

  #failure(code: string, message: string, where?: string): RenderOutcome {
    const text = `rendering ${this.key} failed: ${message}${
      where === undefined ? "" : ` (${where})`
    }`;
    return { diagnostics: [templateError(code, text, { uri: this.uri }, { template: this.key })] };
  }
}

/**
 * Where a static error is. The compiler names a line, but for an instruction
 * inside a literal result element it can name the line after; when the
 * message quotes the failing XPath, the attribute holding it gives the exact
 * start tag. A line in another module (the entry module) is dropped.
 */
function staticErrorPosition(
  text: string,
  file: string,
  err: StaticError,
): Omit<SourceLocation, "uri"> {
  if (err.module !== undefined && err.module !== file) return {};
  const expression = QUOTED_XPATH.exec(err.message)?.[1];
  const at = expression === undefined ? undefined : findAttribute(text, expression);
  if (at !== undefined) return { line: at.line, column: at.column };
  const line = err.line ?? LINE_IN_MESSAGE.exec(err.message)?.[1];
  return line === undefined ? {} : { line: Number(line) };
}

/** `Q{http://www.w3.org/2005/xqt-errors}XPST0003` → `XPST0003`. */
function shortCode(code: string | undefined): string | undefined {
  return code?.replace(/^Q\{[^}]*\}/, "");
}
