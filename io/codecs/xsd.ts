/**
 * `schemaKind: xsd`: a package folder of XSDs compiled at deploy time into a
 * codec (each entry schema compiled once). The message type is the
 * document's root element; libxml2 parses the document once, the typed view
 * of `_xml_view.ts` is built from that parse's tree and the same parse is
 * validated, every violation a SOFT_ERRORS issue with the line and the JSON
 * Pointer of the element it is about. The FEEL shape comes from the schema.
 *
 * With `formats: [xml, json, yaml]` a JSON or YAML document is accepted
 * too: it is one member named after the root element whose value maps to
 * XML as `_xml_write.ts` describes, and that XML is what is validated and
 * viewed, so the payload is the same whichever format carried it.
 *
 * @module
 */
import { stringify } from "yaml";
import type { Shape } from "../../engine/bpmn/shape.ts";
import {
  type Codec,
  decoded,
  type DecodeResult,
  type EncodeOptions,
  type EncodeResult,
  fatal,
  type Issue,
  issue,
  type SchemaBuild,
  type SchemaFolder,
  type SchemaKind,
} from "../../engine/core/codec.ts";
import type { Diagnostic } from "../../engine/core/diagnostic.ts";
import { writeJson } from "./_json_write.ts";
import { layoutOf, manifestFormats, schemaInvalid, unknownKeys } from "./_manifest.ts";
import {
  decodeText,
  mediaMatches,
  parseMediaType,
  pointerSegment,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";
import type { XmlNode } from "./_xml_tree.ts";
import {
  type CompiledSchema,
  compileSchema,
  type Libxml2Message,
  MAX_DOCUMENT_DEPTH,
  readDocument,
  type Refusal,
} from "../../engine/bpmn/xsd_validator.ts";
import { viewXml } from "./_xml_view.ts";
import { writeXml } from "./_xml_write.ts";
import { clark, compileXsdModel, type XsdElement, type XsdModel } from "./_xsd_model.ts";
import { elementShape } from "./_xsd_shape.ts";
import { JSON_TYPES, readJson } from "./json.ts";
import { asUtf8Document, decodeXmlText, XML_TYPES } from "./xml.ts";
import { readYaml, YAML_TYPES } from "./yaml.ts";

/** The wire formats an XSD codec can accept. */
export type XsdFormat = "xml" | "json" | "yaml";

const FORMAT_TYPES: Record<XsdFormat, readonly string[]> = {
  xml: XML_TYPES,
  json: JSON_TYPES,
  yaml: YAML_TYPES,
};

/** A compiled folder of XSDs: the model, and what libxml2 validates with. */
export interface XsdSchemaSet {
  readonly model: XsdModel;
  /** libxml2's schema compiled from each file that declares a root element, by file. */
  readonly entries: ReadonlyMap<string, CompiledSchema>;
}

/**
 * Reads, models and compiles the XSD files of a folder, each entry point
 * once (every message is then validated against the compiled schema);
 * every problem is a diagnostic.
 */
export async function compileXsdSet(
  folder: SchemaFolder,
  files: readonly string[],
): Promise<{ set: XsdSchemaSet; diagnostics?: undefined } | { diagnostics: Diagnostic[] }> {
  const problems: Diagnostic[] = [];
  const texts = new Map<string, string>();
  for (const file of files) {
    const bytes = folder.files.get(file);
    if (bytes === undefined) {
      problems.push(schemaInvalid(folder, file, "the schema file does not exist"));
      continue;
    }
    const text = decodeXmlText(bytes);
    if (text.issue) problems.push(schemaInvalid(folder, file, text.issue.message));
    else texts.set(file, asUtf8Document(text.text));
  }
  if (problems.length > 0) return { diagnostics: problems };
  const compiled = compileXsdModel(texts);
  if (compiled.problems) {
    return {
      diagnostics: compiled.problems.map((p) => schemaInvalid(folder, p.file, p.message, p.line)),
    };
  }
  const mains = new Set([...compiled.model.globals.values()].map((g) => g.file!));
  const entries = new Map<string, CompiledSchema>();
  const seen = new Set<string>();
  for (const main of mains) {
    const result = await compileEntry(folder, texts, main);
    if ("schema" in result) {
      entries.set(main, result.schema);
      continue;
    }
    // Files shared by several entry points would report the same refusal twice.
    for (const d of result.refused) {
      const key = `${d.source?.uri}:${d.source?.line}:${d.message}`;
      if (!seen.has(key)) problems.push(d);
      seen.add(key);
    }
  }
  const set: XsdSchemaSet = { model: compiled.model, entries };
  return problems.length > 0 ? { diagnostics: problems } : { set };
}

/** Has libxml2 compile the schema rooted at `main`, or says what it refuses. */
async function compileEntry(
  folder: SchemaFolder,
  texts: ReadonlyMap<string, string>,
  main: string,
): Promise<{ schema: CompiledSchema } | { refused: Diagnostic[] }> {
  let result;
  try {
    result = await compileSchema(texts, main);
  } catch (e) {
    return {
      refused: [schemaInvalid(folder, main, `libxml2 could not run: ${(e as Error).message}`)],
    };
  }
  if (result.schema) return { schema: result.schema };
  const located = result.problems.filter((p) => p.file);
  if (located.length === 0) {
    const reason = result.problems[0]?.message ?? "no reason given";
    return {
      refused: [schemaInvalid(folder, main, `libxml2 cannot compile the schema: ${reason}`)],
    };
  }
  return {
    refused: located.map((p) =>
      schemaInvalid(folder, p.file!, readable(p.message), p.line > 0 ? p.line : undefined)
    ),
  };
}

/** libxml2's wording without the `{namespace}` it writes before element names. */
function readable(message: string): string {
  return message.replace(/\{[^{}\s']*[:/][^{}\s']*\}(?=[\p{L}_])/gu, "").trim();
}

const OFFENDING_VALUE = /(?:The value |: )'([^']*)' is not|[Vv]alue '([^']*)'/;
const ATTRIBUTE = /^Element '[^']*', attribute '([^']+)'/;
const ELEMENT = /^Element '(?:\{[^}]*\})?([^']+)'/;

/** Turns libxml2's messages about one document into issues located by `locate`. */
function violations(
  messages: readonly Libxml2Message[],
  locate: (line: number, element: string | undefined) => string,
): Issue[] {
  return messages.map((m) => {
    const message = readable(m.message);
    const attribute = ATTRIBUTE.exec(message)?.[1];
    const element = ELEMENT.exec(m.message)?.[1];
    let path = locate(m.line, element?.replace(/^.*:/, ""));
    if (attribute !== undefined) path += `/${pointerSegment(attribute.replace(/^.*:/, ""))}`;
    const valueMatch = OFFENDING_VALUE.exec(message);
    const value = valueMatch?.[1] ?? valueMatch?.[2];
    return issue("SUTRA.VALIDATE.XSD.VIOLATION", message, {
      path,
      line: m.line,
      ...(m.column > 0 ? { column: m.column } : {}),
      ...(value === undefined ? {} : { value }),
    });
  });
}

/** Every element of a parsed document by the line its start tag ends on. */
function elementsByLine(root: XmlNode): Map<number, XmlNode[]> {
  const byLine = new Map<number, XmlNode[]>();
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const line of new Set([node.tagEndLine, node.line])) {
      const list = byLine.get(line);
      if (list) list.push(node);
      else byLine.set(line, [node]);
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return byLine;
}

/** The first characters of a document, byte-order mark and leading blanks skipped. */
function headText(bytes: Uint8Array): string {
  const label = bytes[0] === 0xff && bytes[1] === 0xfe
    ? "utf-16le"
    : bytes[0] === 0xfe && bytes[1] === 0xff
    ? "utf-16be"
    : "utf-8";
  return new TextDecoder(label).decode(bytes.subarray(0, 256)).trimStart();
}

/** Options for {@link XsdCodec}. */
export interface XsdCodecOptions {
  /** The codec's URN. */
  readonly urn: string;
  /** Accepted wire formats; the first is what a reply is written in by default. */
  readonly formats: readonly XsdFormat[];
  /**
   * Chooses the schema set (and root declaration) a root element is checked
   * against: for a decoded message, or for a reply being encoded.
   */
  readonly select: (
    root: { readonly uri?: string; readonly local: string },
    direction: "incoming" | "outgoing",
  ) => Selection | undefined;
  /** Every message type the codec declares. */
  readonly messageTypes: readonly string[];
}

/** The schema set and declaration a document is checked against. */
export interface Selection {
  readonly set: XsdSchemaSet;
  readonly declaration: XsdElement;
}

/** The outcome of validating one document: issues, or why validation could not run. */
type Validation = { issues: Issue[]; fatal?: undefined } | { issues?: undefined; fatal: Issue };

/** A codec validating against XSDs. */
export class XsdCodec implements Codec {
  readonly name: string;
  readonly contentTypes: readonly string[];
  readonly #options: XsdCodecOptions;

  constructor(options: XsdCodecOptions) {
    this.#options = options;
    this.name = options.urn;
    this.contentTypes = options.formats.flatMap((f) => FORMAT_TYPES[f]);
  }

  messageTypes(): readonly string[] {
    return this.#options.messageTypes;
  }

  shapeOf(messageType?: string): Shape | undefined {
    const types = this.#options.messageTypes;
    const local = messageType ?? (types.length === 1 ? types[0] : undefined);
    if (local === undefined) return undefined;
    const selected = this.#options.select({ local }, "incoming") ??
      this.#options.select({ local }, "outgoing");
    return selected ? elementShape(selected.declaration) : undefined;
  }

  /** The format bytes are in: by content type, else by their first character. */
  #format(bytes: Uint8Array, contentType: string | undefined): XsdFormat | Issue {
    const media = parseMediaType(contentType);
    const formats = this.#options.formats;
    if (media) {
      const format = formats.find((f) => mediaMatches(media, FORMAT_TYPES[f]));
      return format ?? unsupportedMediaType(this.name, contentType!, this.contentTypes);
    }
    const head = headText(bytes);
    const sniffed: XsdFormat = head.startsWith("<")
      ? "xml"
      : head.startsWith("{")
      ? "json"
      : "yaml";
    return formats.includes(sniffed) ? sniffed : formats[0];
  }

  decode(bytes: Uint8Array, contentType?: string): Promise<DecodeResult> {
    return Promise.resolve(this.#decode(bytes, contentType));
  }

  #decode(bytes: Uint8Array, contentType: string | undefined): DecodeResult {
    const format = this.#format(bytes, contentType);
    if (typeof format !== "string") return fatal(format);
    const charset = parseMediaType(contentType)?.charset;
    if (format === "xml") return this.#decodeXml(bytes, charset);
    const text = decodeText(bytes, charset);
    if (text.issue) return fatal(text.issue);
    if (format === "json") {
      const read = readJson(text.text);
      return read.issue ? fatal(read.issue) : this.#decodeData(format, read.value, []);
    }
    const read = readYaml(text.text);
    return read.errors ? fatal(read.errors) : this.#decodeData(format, read.value, read.warnings);
  }

  /**
   * An XML document, parsed once by libxml2: the typed view is built from
   * that parse's tree and the same parse is validated.
   */
  #decodeXml(bytes: Uint8Array, charset: string | undefined): DecodeResult {
    const text = decodeXmlText(bytes, charset);
    if (text.issue) return fatal(text.issue);
    let read;
    try {
      read = readDocument(asUtf8Document(text.text), ({ root, validate }) => {
        const selected = this.#options.select(root, "incoming");
        if (selected === undefined) {
          return decoded(viewXml(root).payload, [undeclared(root.local)], root.local);
        }
        const view = viewXml(root, selected.declaration);
        const found = validate(selected.set.entries.get(selected.declaration.file!)!);
        if (found.length === 0) return decoded(view.payload, [], root.local);
        const pointers = viewXml(root, selected.declaration, { track: true }).pointers;
        const byLine = elementsByLine(root);
        const issues = violations(found, (line, element) => {
          const candidates = byLine.get(line) ?? [];
          const node = candidates.find((n) => n.local === element) ?? candidates[0];
          return (node && pointers.get(node)) ?? "";
        });
        return decoded(view.payload, issues, root.local);
      });
    } catch (e) {
      return fatal(unavailable((e as Error).message));
    }
    return read.refused ? fatal(refusal(read.refused)) : read.result;
  }

  /** A JSON or YAML document: one member named after the root element. */
  #decodeData(format: "json" | "yaml", value: unknown, warnings: readonly Issue[]): DecodeResult {
    const keys = value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.keys(value)
      : [];
    if (keys.length !== 1) {
      const mapping = issue(
        "SUTRA.VALIDATE.XSD.MAPPING",
        "the document must be an object with exactly one member, named after its root element",
      );
      return decoded(value, [...warnings, mapping]);
    }
    const rootName = keys[0];
    const content = (value as Record<string, unknown>)[rootName];
    const selected = this.#options.select({ local: rootName }, "incoming");
    if (selected === undefined) {
      return decoded(content, [...warnings, undeclared(rootName)], rootName);
    }
    // libxml2 reads no deeper than MAX_DOCUMENT_DEPTH; past it the document is too deep in the
    // format it came in, as it would be past the engine-wide limit.
    const written = writeXml(rootName, content, {
      declaration: selected.declaration,
      code: "SUTRA.VALIDATE.XSD.MAPPING",
      maxDepth: MAX_DOCUMENT_DEPTH,
      tooDeepCode: format === "json" ? "SUTRA.PARSE.JSON.TOO_DEEP" : "SUTRA.PARSE.YAML.TOO_DEEP",
    });
    if ("refused" in written) return fatal(written.refused, rootName);
    const payload = viewXml(written.root, selected.declaration).payload;
    const checked = this.#validate(
      selected,
      written.text,
      (line) => written.lines.get(line) ?? "",
    );
    if (checked.fatal) return fatal(checked.fatal, rootName);
    return decoded(payload, [...warnings, ...written.issues, ...checked.issues], rootName);
  }

  #validate(
    selected: Selection,
    document: string,
    locate: (line: number, element: string | undefined) => string,
  ): Validation {
    let checked;
    try {
      checked = selected.set.entries.get(selected.declaration.file!)!.check(document);
    } catch (e) {
      return { fatal: unavailable((e as Error).message) };
    }
    if (checked.malformed) {
      const m = checked.malformed;
      return {
        fatal: issue(
          "SUTRA.PARSE.XML.MALFORMED",
          `libxml2 refuses the document: ${readable(m.message)}`,
          m.line > 0 ? { line: m.line, ...(m.column > 0 ? { column: m.column } : {}) } : {},
        ),
      };
    }
    return { issues: violations(checked.violations, locate) };
  }

  encode(value: unknown, options: EncodeOptions = {}): Promise<EncodeResult> {
    return Promise.resolve(this.#encode(value, options));
  }

  #encode(value: unknown, options: EncodeOptions): EncodeResult {
    const types = this.#options.messageTypes;
    const root = options.messageType ?? (types.length === 1 ? types[0] : undefined);
    if (root === undefined) {
      return refusedEncode(
        "SUTRA.ENCODE.MESSAGE_TYPE_MISSING",
        "name the message type (the root element) to write",
      );
    }
    const selected = this.#options.select({ local: root }, "outgoing");
    if (selected === undefined) {
      return refusedEncode(
        "SUTRA.ENCODE.MESSAGE_TYPE_UNKNOWN",
        `the schema declares no root element '${root}'`,
      );
    }
    const media = parseMediaType(options.contentType);
    const format = media
      ? this.#options.formats.find((f) => mediaMatches(media, FORMAT_TYPES[f]))
      : this.#options.formats[0];
    if (format === undefined) {
      return refusedEncode(
        "SUTRA.ENCODE.CONTENT_TYPE_UNSUPPORTED",
        `codec ${this.name} does not write '${options.contentType}'`,
      );
    }
    const written = writeXml(root, value, {
      declaration: selected.declaration,
      code: "SUTRA.ENCODE.UNWRITABLE",
      maxDepth: MAX_DOCUMENT_DEPTH,
    });
    if ("refused" in written) return { ok: false, issues: [written.refused] };
    if (written.issues.length > 0) return { ok: false, issues: written.issues };
    const checked = this.#validate(
      selected,
      written.text,
      (line) => written.lines.get(line) ?? "",
    );
    const problems = checked.fatal ? [checked.fatal] : checked.issues;
    if (problems.length > 0) return { ok: false, issues: problems };
    if (format === "xml") {
      return {
        ok: true,
        bytes: utf8(`<?xml version="1.0" encoding="UTF-8"?>\n${written.text}`),
        contentType: "application/xml",
      };
    }
    const wrapped = { [root]: value };
    if (format === "yaml") {
      return { ok: true, bytes: utf8(stringify(wrapped)), contentType: "application/yaml" };
    }
    const json = writeJson(wrapped);
    if (json.issue) return { ok: false, issues: [json.issue] };
    return { ok: true, bytes: utf8(json.text), contentType: "application/json" };
  }
}

const REFUSALS: Record<Refusal["kind"], string> = {
  malformed: "SUTRA.PARSE.XML.MALFORMED",
  doctype: "SUTRA.PARSE.XML.DOCTYPE_FORBIDDEN",
  "too-deep": "SUTRA.PARSE.XML.TOO_DEEP",
};

function refusal(refused: Refusal): Issue {
  const { line, column, message } = refused.at;
  return issue(REFUSALS[refused.kind], readable(message), {
    ...(line > 0 ? { line } : {}),
    ...(column > 0 ? { column } : {}),
  });
}

function undeclared(root: string): Issue {
  return issue(
    "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED",
    `the schema declares no root element '${root}'`,
    { value: root },
  );
}

function unavailable(reason: string): Issue {
  return issue(
    "SUTRA.VALIDATE.XSD.UNAVAILABLE",
    `schema validation could not run, so the message is refused: ${reason}`,
  );
}

function refusedEncode(code: string, message: string): EncodeResult {
  return { ok: false, issues: [issue(code, message)] };
}

/** Message types of a model: the local names of its global elements. */
export function rootNames(model: XsdModel): string[] {
  return [...new Set([...model.globals.values()].map((g) => g.name))].sort();
}

/** Finds a global element by namespace and local name, or by local name alone. */
export function findRoot(
  model: XsdModel,
  root: { uri?: string; local: string },
): XsdElement | undefined {
  if (root.uri !== undefined) return model.globals.get(clark(root.uri, root.local));
  for (const g of model.globals.values()) if (g.name === root.local) return g;
  return undefined;
}

const FORMATS: readonly XsdFormat[] = ["xml", "json", "yaml"];

/** The generic `schemaKind: xsd`. */
export const xsdKind: SchemaKind = {
  name: "xsd",
  bundle: false,
  async build(folder: SchemaFolder): Promise<SchemaBuild> {
    const problems = [
      ...unknownKeys(folder, ["schemaKind", "formats"]),
      ...layoutOf(folder, ".xsd", "XSD"),
    ];
    const { formats, diagnostics } = manifestFormats(folder, FORMATS);
    problems.push(...diagnostics);
    if (problems.length > 0) return { diagnostics: problems };
    const compiled = await compileXsdSet(folder, [...folder.files.keys()].sort());
    if (compiled.diagnostics) return { diagnostics: compiled.diagnostics };
    const set = compiled.set;
    if (set.model.globals.size === 0) {
      return {
        diagnostics: [
          schemaInvalid(
            folder,
            [...folder.files.keys()][0],
            "the schemas declare no global element, so no message type",
          ),
        ],
      };
    }
    const codec = new XsdCodec({
      urn: folder.urn,
      formats,
      messageTypes: rootNames(set.model),
      select: (root) => {
        const declaration = findRoot(set.model, root);
        return declaration ? { set, declaration } : undefined;
      },
    });
    return { codec };
  },
};
