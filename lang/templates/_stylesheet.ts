/**
 * What a stylesheet declares at its top level, read from its source with
 * saxes (the content type and the way a render starts depend on it), and the
 * entry module each stylesheet is compiled under.
 *
 * The entry module imports the stylesheet and adds one named template,
 * which puts the variables map (a stylesheet parameter) in focus and then
 * calls `xsl:initial-template` or applies templates to it. That is how the
 * map becomes the context item: `SaxonJS.transform` takes only a document
 * as the context item.
 *
 * @module
 */
import { SaxesParser } from "saxes";

/** The XSLT namespace. */
export const XSL_NS = "http://www.w3.org/1999/XSL/Transform";

/** The namespace of the entry module's parameter and template. */
export const ENTRY_NS = "urn:sutra:templates:xslt";

/** The entry module's template that starts a render without a source document. */
export const ENTRY_TEMPLATE = `Q{${ENTRY_NS}}start`;

/** The entry module's parameter holding the variables map. */
export const CONTEXT_PARAM = `Q{${ENTRY_NS}}context`;

/** The file name of the entry module (the sanitizer below never yields a `+`). */
export const ENTRY_FILE = "sutra+entry.xsl";

const INITIAL_TEMPLATE = `Q{${XSL_NS}}initial-template`;
const OUTPUT_ATTRIBUTES = new Set(["method", "media-type", "encoding"]);

/** Top-level facts of a stylesheet. */
export interface StylesheetFacts {
  /** The line of the `xsl:initial-template` start tag, when it declares that template. */
  readonly initialTemplate?: number;
  /** The mode its `default-mode` names, as an EQName. */
  readonly defaultMode?: string;
  /** `method`, `media-type` and `encoding` of its unnamed `xsl:output` (the last one given wins). */
  readonly output: ReadonlyMap<string, string>;
}

/** Reads the facts of a stylesheet (`text` must be well-formed). */
export function stylesheetFacts(text: string): StylesheetFacts {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const output = new Map<string, string>();
  let initialTemplate: number | undefined;
  let defaultMode: string | undefined;
  let depth = 0;
  let isStylesheet = false;
  parser.on("opentag", (tag) => {
    const name = (attribute: string) => {
      const value = tag.attributes[attribute];
      return value === undefined || value.uri !== "" ? undefined : value.value.trim();
    };
    const xsl = tag.uri === XSL_NS;
    if (depth === 0) {
      isStylesheet = xsl && (tag.local === "stylesheet" || tag.local === "transform");
      const mode = isStylesheet ? name("default-mode") : undefined;
      if (mode !== undefined && mode !== "#unnamed") defaultMode = eqName(mode, parser);
    } else if (depth === 1 && isStylesheet && xsl) {
      const named = name("name");
      if (tag.local === "template" && named !== undefined) {
        if (eqName(named, parser) === INITIAL_TEMPLATE) initialTemplate ??= parser.line;
      } else if (tag.local === "output" && named === undefined) {
        for (const attribute of OUTPUT_ATTRIBUTES) {
          const value = name(attribute);
          if (value !== undefined) output.set(attribute, value);
        }
      }
    }
    depth++;
  });
  parser.on("closetag", () => depth--);
  parser.write(text).close();
  return { initialTemplate, defaultMode, output };
}

/** `prefix:local`, `local` or `Q{uri}local` as an EQName. */
function eqName(lexical: string, parser: SaxesParser<{ xmlns: true; position: true }>): string {
  if (lexical.startsWith("Q{")) return lexical;
  const colon = lexical.indexOf(":");
  if (colon < 0) return `Q{}${lexical}`;
  return `Q{${parser.resolve(lexical.slice(0, colon)) ?? ""}}${lexical.slice(colon + 1)}`;
}

/** A file name for a template, from the last segment of its URI: letters, digits, `.`, `_`, `-`. */
export function moduleFileName(uri: string): string {
  const base = uri.slice(uri.lastIndexOf("/") + 1).replace(/[^A-Za-z0-9._-]/g, "_");
  return /^[A-Za-z0-9_]/.test(base) ? base : `_${base}`;
}

/** The entry module that imports the stylesheet `file`. */
export function entryModule(file: string, facts: StylesheetFacts): string {
  const mode = facts.defaultMode === undefined
    ? ""
    : ` default-mode="${facts.defaultMode.replace(/[&<"]/g, (c) => `&#${c.charCodeAt(0)};`)}"`;
  const start = facts.initialTemplate !== undefined
    ? `<xsl:for-each select="$s:context"><xsl:call-template name="xsl:initial-template"/></xsl:for-each>`
    : `<xsl:apply-templates select="$s:context"/>`;
  return `<xsl:stylesheet version="3.0" xmlns:xsl="${XSL_NS}" xmlns:s="${ENTRY_NS}"${mode}>
  <xsl:import href="${file}"/>
  <xsl:param name="s:context" as="item()?"/>
  <xsl:template name="s:start">${start}</xsl:template>
</xsl:stylesheet>`;
}
