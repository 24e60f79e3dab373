/**
 * Validates every q: element of a document against `xsd/q.xsd` with
 * libxml2 (npm:libxml2-wasm): the schema is compiled once per process and
 * reused for every element of every document.
 *
 * Each top-level q: element becomes its own small document: the element's
 * exact source text, preceded by as many newlines as it had lines above it
 * and with the namespace bindings it inherited written onto it. libxml2's
 * line numbers are then the file's line numbers without any mapping.
 *
 * @module
 */
import { compileSchema, type SchemaCompile } from "./xsd_validator.ts";
import type { Diagnostic } from "../core/diagnostic.ts";
import type { SourceText } from "./_source.ts";
import type { XmlElement } from "./_xml.ts";
import { Q_NAMESPACE } from "./q_model.ts";
import schemaText from "../../xsd/q.xsd" with { type: "text" };
import { errorMessage } from "../core/errors.ts";

const XMLNS = "http://www.w3.org/2000/xmlns/";

/** The text of `xsd/q.xsd`, as shipped with the engine. */
export const Q_SCHEMA: string = schemaText;

// Messages libxml2 words for machines; these read better and some have a
// precise code of their own.
const TRANSLATIONS: readonly {
  readonly pattern: RegExp;
  readonly code: string;
  readonly message: (m: RegExpMatchArray) => string;
}[] = [
  {
    pattern:
      /^Element '([^']+)', attribute '([^']+)': \[facet 'pattern'\] The value '([^']*)' is not accepted by the pattern 'P\\d\+W/,
    code: "SUTRA.CONFIG.BPMN.Q_SCHEMA",
    message: (m) =>
      `Element '${m[1]}', attribute '${m[2]}': '${m[3]}' is not an exact ISO-8601 duration ` +
      "(weeks, days, hours, minutes, seconds: P1W, P2D, PT1M30S; years and months are refused)",
  },
  {
    pattern: /Element 'q:source', attribute 'codec': The attribute 'codec' is not allowed\./,
    code: "SUTRA.CONFIG.BPMN.SOURCE_CODEC",
    message: () =>
      "q:source may not name a codec: the codec is bound to the channel in channels.yaml",
  },
];

function standalone(source: SourceText, el: XmlElement): string {
  const own = new Set(
    el.attributes.filter((a) => a.uri === XMLNS).map((a) => (a.name === "xmlns" ? "" : a.local)),
  );
  let declarations = "";
  for (const [prefix, uri] of Object.entries(el.ns)) {
    if (own.has(prefix) || prefix === "xml" || prefix === "xmlns") continue;
    const escaped = uri.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
    declarations += prefix === "" ? ` xmlns="${escaped}"` : ` xmlns:${prefix}="${escaped}"`;
  }
  const text = oneLineTags(source.text.slice(el.start, el.end));
  const nameEnd = 1 + el.name.length;
  return "\n".repeat(el.line - 1) + text.slice(0, nameEnd) + declarations + text.slice(nameEnd);
}

/**
 * libxml2 reports an element on the line where its start tag ends. Writing
 * each start tag on one line (and the line breaks it contained right after
 * it, where they are insignificant white space) makes that the line where
 * the element starts, without moving anything below it.
 */
function oneLineTags(xml: string): string {
  let out = "";
  let i = 0;
  while (i < xml.length) {
    const open = xml.indexOf("<", i);
    if (open < 0) return out + xml.slice(i);
    out += xml.slice(i, open);
    if (
      xml.startsWith("<!--", open) || xml.startsWith("<![CDATA[", open) || xml[open + 1] === "/"
    ) {
      const close = xml.indexOf(">", open);
      const end = close < 0 ? xml.length : close + 1;
      out += xml.slice(open, end);
      i = end;
      continue;
    }
    let quote = "";
    let j = open + 1;
    for (; j < xml.length; j++) {
      const c = xml[j];
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") {
        quote = c;
      } else if (c === ">") {
        break;
      }
    }
    const tag = xml.slice(open, j + 1);
    const breaks = tag.split("\n").length - 1;
    out += tag.replace(/\r?\n/g, " ") + "\n".repeat(breaks);
    i = j + 1;
  }
  return out;
}

/** Every q: element of a subtree by the line it starts on (the first one per line). */
function byLine(el: XmlElement, into = new Map<number, XmlElement>()): Map<number, XmlElement> {
  if (el.uri === Q_NAMESPACE && !into.has(el.line)) into.set(el.line, el);
  for (const child of el.children) byLine(child, into);
  return into;
}

function readable(message: string): string {
  return message
    .replace(/^Schemas validity error : /, "")
    .replaceAll(`{${Q_NAMESPACE}}`, "q:");
}

/** Options for {@link validateQElements}. */
export interface QSchemaOptions {
  /** URI put on every diagnostic. */
  readonly uri: string;
}

/**
 * Validates the given top-level q: elements; resolves to one diagnostic per
 * schema violation (none when all are valid). Never rejects: a validator
 * that cannot run is itself reported, since skipping the check would
 * accept what the schema forbids.
 */
export async function validateQElements(
  source: SourceText,
  elements: readonly XmlElement[],
  options: QSchemaOptions,
): Promise<Diagnostic[]> {
  if (elements.length === 0) return [];
  let compiled: SchemaCompile;
  try {
    compiled = await qSchema();
  } catch (error) {
    qCompile = undefined;
    return [unavailable(options.uri, elements[0], errorMessage(error))];
  }
  if (compiled.problems) {
    return [unavailable(options.uri, elements[0], compiled.problems[0]?.message ?? "")];
  }
  const schema = compiled.schema;
  const diagnostics: Diagnostic[] = [];
  elements.forEach((root, index) => {
    const checked = schema.check(standalone(source, root));
    const found = checked.malformed ? [checked.malformed] : checked.violations;
    for (const e of found) {
      const line = e.line;
      const element = byLine(root).get(line);
      const column = element?.column;
      const message = readable(e.message);
      const translation = TRANSLATIONS.find((t) => t.pattern.test(message));
      diagnostics.push({
        code: translation?.code ?? "SUTRA.CONFIG.BPMN.Q_SCHEMA",
        severity: "ERROR",
        message: translation ? translation.message(message.match(translation.pattern)!) : message,
        source: column === undefined
          ? { uri: options.uri, line }
          : { uri: options.uri, line, column },
        attributes: { element: `q:${element?.local ?? elements[index]?.local ?? ""}` },
      });
    }
  });
  return diagnostics;
}

let qCompile: Promise<SchemaCompile> | undefined;

/** `xsd/q.xsd`, compiled by libxml2 on first use and kept for the process. */
function qSchema(): Promise<SchemaCompile> {
  qCompile ??= compileSchema(new Map([["q.xsd", Q_SCHEMA]]), "q.xsd");
  return qCompile;
}

function unavailable(uri: string, first: XmlElement, reason: string): Diagnostic {
  return {
    code: "SUTRA.CONFIG.BPMN.Q_SCHEMA_UNAVAILABLE",
    severity: "ERROR",
    message: `the q: schema check could not run: ${reason}`,
    source: { uri, line: first.line, column: first.column },
  };
}
