/**
 * Shared state of one model read: the DMN namespace in use, the file URI and
 * the diagnostics found so far, plus the small helpers every reader module
 * needs (positions, required attributes, `<text>` children).
 *
 * @module
 */
import { DmnCode, type DmnDiagnostic, dmnDiagnostic, type SourceLocation } from "./diagnostic.ts";
import type { Href, InformationItem } from "./model.ts";
import { attr, child, type XmlElement } from "./_xml.ts";

/** XML Schema built-in types some DMN 1.1 models use as typeRefs, by local name. */
const XSD_TYPES: Readonly<Record<string, string>> = {
  string: "string",
  boolean: "boolean",
  decimal: "number",
  double: "number",
  float: "number",
  integer: "number",
  int: "number",
  long: "number",
  date: "date",
  time: "time",
  dateTime: "date and time",
  dayTimeDuration: "days and time duration",
  yearMonthDuration: "years and months duration",
  duration: "days and time duration",
};

const XSD_NS = "http://www.w3.org/2001/XMLSchema";
const QNAME = /^([A-Za-z_][\w.-]*):([^:].*)$/;

/** State of one model read. */
export class ReadContext {
  /** Every problem found, in document order. */
  readonly diagnostics: DmnDiagnostic[] = [];
  /** The model's own namespace, once read. */
  modelNamespace = "";
  /** Import names by imported namespace, once read. */
  readonly importNames = new Map<string, string>();
  /** The model-wide expression language, when it is not FEEL. */
  defaultLanguage: string | undefined;

  /** Starts a read of a model in namespace `ns` loaded from `uri`. */
  constructor(readonly ns: string, readonly uri: string) {}

  /**
   * A typeRef as FEEL names it. DMN 1.1 wrote QNames (`feel:number`,
   * `tns:tPerson`, `xsd:string`): a prefix bound to FEEL or to the model's
   * own namespace is dropped, one bound to an imported model becomes the
   * import name, XML Schema types become their FEEL equivalents.
   */
  typeRef(e: XmlElement, raw: string | undefined): string | undefined {
    const text = raw?.trim();
    if (text === undefined || text === "") return undefined;
    const m = QNAME.exec(text);
    if (m === null) return text;
    const ns = e.resolve(m[1]);
    if (ns === undefined) return text;
    if (ns === XSD_NS) return XSD_TYPES[m[2]] ?? text;
    if (ns === this.modelNamespace || /\/FEEL\//i.test(ns) || ns === this.ns) return m[2];
    const imported = this.importNames.get(ns);
    return imported === undefined ? text : `${imported}.${m[2]}`;
  }

  /** The position of `e`. */
  at(e: XmlElement): SourceLocation {
    return { uri: this.uri, line: e.line, column: e.column };
  }

  /** Records an error at `e`. */
  error(code: string, message: string, e: XmlElement): void {
    this.diagnostics.push(dmnDiagnostic(code, message, {
      source: this.at(e),
      ...(attr(e, "id") === undefined ? {} : { attributes: { id: attr(e, "id")! } }),
    }));
  }

  /** The DMN child `name` of `e`. */
  child(e: XmlElement, name: string): XmlElement | undefined {
    return child(e, this.ns, name);
  }

  /** The DMN children `name` of `e`. */
  children(e: XmlElement, name: string): XmlElement[] {
    return e.children.filter((c) => c.ns === this.ns && c.name === name);
  }

  /** Attribute `name` of `e`, reported as malformed when missing. */
  required(e: XmlElement, name: string): string {
    const v = attr(e, name);
    if (v === undefined || v.trim() === "") {
      this.error(DmnCode.MALFORMED, `<${e.name}> needs a '${name}' attribute`, e);
      return "";
    }
    return v;
  }

  /** Where the content of the DMN `<text>` child of `e` begins, when there is one. */
  textStart(e: XmlElement): SourceLocation | undefined {
    const t = this.child(e, "text");
    return t === undefined
      ? undefined
      : { uri: this.uri, line: t.contentLine, column: t.contentColumn };
  }

  /** The text of the DMN `<text>` child of `e` (empty when absent). */
  text(e: XmlElement): string {
    return this.child(e, "text")?.text ?? "";
  }

  /** The `href` of a requirement element, split into namespace and id. */
  href(e: XmlElement): Href | undefined {
    const h = attr(e, "href");
    if (h === undefined) {
      this.error(DmnCode.MALFORMED, `<${e.name}> needs an 'href' attribute`, e);
      return undefined;
    }
    const hash = h.indexOf("#");
    if (hash < 0) return { id: h.trim() };
    const namespace = h.slice(0, hash).trim();
    const id = h.slice(hash + 1).trim();
    return namespace === "" ? { id } : { namespace, id };
  }

  /** An information item (`variable`, `parameter`, `column`, `formalParameter`). */
  informationItem(e: XmlElement): InformationItem {
    const name = this.required(e, "name");
    const typeRef = this.typeRef(e, attr(e, "typeRef") ?? this.child(e, "typeRef")?.text);
    return typeRef === undefined ? { name } : { name, typeRef };
  }
}

/** Whitespace in a name normalised the way FEEL reads it (single spaces, trimmed). */
export function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, " ");
}
