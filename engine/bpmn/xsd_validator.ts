/**
 * XSD validation on libxml2 (npm:libxml2-wasm), shared by the loader's q:
 * check and the XSD codecs: a schema is compiled once into a validator that
 * is reused for every document, and each document is parsed, validated and
 * freed within one synchronous call.
 *
 * `xs:include` and `xs:import` are served only from the files handed to
 * {@link compileSchema}, through libxml2's input-provider hook: every other
 * name libxml2 asks for (a URL, a path, a DTD) fails to open, so neither the
 * network nor the file system is ever read.
 *
 * The library (its WebAssembly module is inside its JavaScript) is loaded on
 * the first compile, so processes without an XSD never pay for it.
 *
 * @module
 */
import type * as Libxml2 from "libxml2-wasm";
import type * as Structs from "libxml2-wasm/lib/libxml2.mjs";

/**
 * Levels of elements libxml2's parser reads (without its "huge" option,
 * which would also lift its other safety limits); a document nested deeper
 * is refused as too deep. Documents written from JSON or YAML are held to it
 * before they are written.
 */
export const MAX_DOCUMENT_DEPTH = 256;

/** The file name a document's messages are reported under. */
export const DOCUMENT = "payload.xml";

/** A message libxml2 reports, located in a schema file or the document. */
export interface Libxml2Message {
  /** The schema file it is about (as passed to {@link compileSchema}); none for the document. */
  readonly file?: string;
  /** 1-based line; 0 when libxml2 names none. */
  readonly line: number;
  /** 1-based column; 0 when libxml2 names none. */
  readonly column: number;
  /** libxml2's wording, trailing line break removed. */
  readonly message: string;
}

/** The outcome of checking one document. */
export type DocumentCheck =
  | { readonly violations: readonly Libxml2Message[]; readonly malformed?: undefined }
  | { readonly violations?: undefined; readonly malformed: Libxml2Message };

/** A schema libxml2 has compiled; freed by the garbage collector once unreachable. */
export interface CompiledSchema {
  /** Parses and validates `document`; synchronous, and leaves nothing allocated behind. */
  check(document: string): DocumentCheck;
}

/** The outcome of {@link compileSchema}. */
export type SchemaCompile =
  | { readonly schema: CompiledSchema; readonly problems?: undefined }
  | { readonly schema?: undefined; readonly problems: readonly Libxml2Message[] };

type Library = typeof Libxml2;
type Loaded = { readonly lib: Library; readonly structs: typeof Structs };

/** Where compiled schemas' files live for libxml2 (`sutra-xsd://<compile>/<file>`). */
const SCHEME = "sutra-xsd://";

let library: Promise<Loaded> | undefined;
/** The library once loaded: a codec exists only after a compile, so its messages find it here. */
let loaded: Loaded | undefined;
/** Files libxml2 may open, by URL; present only while their schema compiles. */
const served = new Map<string, Uint8Array>();
const open = new Map<number, { bytes: Uint8Array; at: number }>();
let nextHandle = 0;
let nextCompile = 0;
let compilations = 0;

function load(): Promise<Loaded> {
  library ??= Promise.all([
    import("libxml2-wasm"),
    // The library's struct module: it hands out views of the WebAssembly memory trees are read from.
    import("libxml2-wasm/lib/libxml2.mjs"),
  ]).then(([lib, structs]) => {
    // Matching every name keeps libxml2 away from its own loaders (files, network).
    lib.xmlRegisterInputProvider({
      match: () => true,
      open: (name) => {
        const bytes = served.get(name);
        if (bytes === undefined) return undefined;
        open.set(++nextHandle, { bytes, at: 0 });
        return nextHandle;
      },
      read: (handle, buffer) => {
        const file = open.get(handle);
        if (file === undefined) return -1;
        const n = Math.min(buffer.byteLength, file.bytes.byteLength - file.at);
        buffer.set(file.bytes.subarray(file.at, file.at + n));
        file.at += n;
        return n;
      },
      close: (handle) => open.delete(handle),
    });
    loaded = { lib, structs };
    return loaded;
  }, (e) => {
    library = undefined;
    throw e;
  });
  return library;
}

/** How many schemas libxml2 has compiled in this process (tests prove reuse with it). */
export function schemaCompilations(): number {
  return compilations;
}

const encoder = new TextEncoder();

/**
 * Compiles the schema entered through `main`, which may include and import
 * any of `files` by relative name. Rejects only when libxml2 cannot be loaded.
 */
export async function compileSchema(
  files: ReadonlyMap<string, string>,
  main: string,
): Promise<SchemaCompile> {
  const { lib } = await load();
  const base = `${SCHEME}${++nextCompile}/`;
  for (const [name, text] of files) served.set(base + name, encoder.encode(text));
  let doc: Libxml2.XmlDocument | undefined;
  let validator: Libxml2.XsdValidator;
  try {
    compilations++;
    doc = lib.XmlDocument.fromString(files.get(main)!, { url: base + main, option: safe(lib) });
    validator = lib.XsdValidator.fromDoc(doc);
  } catch (e) {
    return { problems: messagesOf(e, base) };
  } finally {
    doc?.dispose();
    for (const name of files.keys()) served.delete(base + name);
  }
  const schema = schemaOf(lib, validator);
  validators.set(schema, validator);
  return { schema };
}

const validators = new WeakMap<CompiledSchema, Libxml2.XsdValidator>();

/** One element of a parsed document, in the shape `io/codecs/_xml_tree.ts` reads XML into. */
export interface ParsedElement {
  readonly uri: string;
  readonly local: string;
  /** The name as written, prefix included. */
  readonly name: string;
  /** Attributes, namespace declarations excluded (`uri` "" when unprefixed). */
  readonly attrs: readonly {
    readonly uri: string;
    readonly local: string;
    readonly value: string;
  }[];
  readonly children: readonly ParsedElement[];
  /** Character data directly inside the element (CDATA included). */
  readonly text: string;
  /** Prefix → namespace bindings in scope ("" is the default namespace). */
  readonly scope: Readonly<Record<string, string>>;
  /** libxml2's line of the element: where its start tag ends. */
  readonly line: number;
  readonly tagEndLine: number;
}

/** Why a document was not read. */
export interface Refusal {
  readonly kind: "malformed" | "doctype" | "too-deep";
  readonly at: Libxml2Message;
}

/** What {@link readDocument}'s reader has to work with. */
export interface DocumentAccess {
  readonly root: ParsedElement;
  /** Validates the same parsed document against `schema`; every violation, in order. */
  validate(schema: CompiledSchema): readonly Libxml2Message[];
}

/**
 * Where the document's DOCTYPE declaration starts, if it has one: XML allows it only in the prolog,
 * after the declaration, comments, processing instructions and white space.
 */
function doctypeAt(document: string): number | undefined {
  let at = document.startsWith("\ufeff") ? 1 : 0;
  for (;;) {
    while (/\s/.test(document[at] ?? "")) at++;
    const skipTo = (end: string, from: number) => {
      const found = document.indexOf(end, from);
      return found < 0 ? undefined : found + end.length;
    };
    let next: number | undefined;
    if (document.startsWith("<?", at)) next = skipTo("?>", at + 2);
    else if (document.startsWith("<!--", at)) next = skipTo("-->", at + 4);
    else return document.startsWith("<!DOCTYPE", at) ? at : undefined;
    if (next === undefined) return undefined;
    at = next;
  }
}

/**
 * Parses `document` once with libxml2 and hands its element tree, and
 * validation of that same parse, to `use`; the libxml2 document is freed
 * before this returns. A document with a DOCTYPE is refused unread. Throws
 * when no schema has been compiled yet (the library is not loaded).
 */
export function readDocument<T>(
  document: string,
  use: (access: DocumentAccess) => T,
): { result: T; refused?: undefined } | { result?: undefined; refused: Refusal } {
  if (loaded === undefined) throw new Error("libxml2 is not loaded: no schema was compiled");
  const { lib, structs } = loaded;
  // Found before parsing: libxml2 would expand the DTD's entities first, and an entity bomb would
  // then be refused in libxml2's words rather than as the DOCTYPE it is.
  const doctype = doctypeAt(document);
  if (doctype !== undefined) {
    const line = document.slice(0, doctype).split("\n").length;
    return {
      refused: {
        kind: "doctype",
        at: { line, column: 0, message: "a payload may not carry a DOCTYPE declaration" },
      },
    };
  }
  let doc: Libxml2.XmlDocument;
  try {
    doc = parseText(lib, document);
  } catch (e) {
    const at = messagesOf(e, undefined)[0] ?? { line: 0, column: 0, message: String(e) };
    return { refused: { kind: /Excessive depth/.test(at.message) ? "too-deep" : "malformed", at } };
  }
  try {
    const root = new TreeReader(structs).element(
      (doc.root as unknown as { _nodePtr: number })._nodePtr,
      {},
    );
    return {
      result: use({
        root,
        validate(schema) {
          try {
            validators.get(schema)!.validate(doc);
            return [];
          } catch (e) {
            if (!(e instanceof lib.XmlLibError)) throw e;
            return messagesOf(e, undefined);
          }
        },
      }),
    };
  } finally {
    doc.dispose();
  }
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_NODE = 4;

// libxml2's tree structs as the linked (wasm32) build lays them out, in 32-bit words; the
// library's own struct readers use the same offsets. xmlNode and xmlAttr share the first ten.
const TYPE = 1;
const NAME = 2;
const CHILDREN = 3;
const NEXT = 6;
const NS = 9;
const CONTENT = 10;
const PROPERTIES = 11;
const NS_DEF = 12;
const LINE = 14;
// xmlNs: next, type, href, prefix.
const NS_NEXT = 0;
const NS_HREF = 2;
const NS_PREFIX = 3;

/** Views of the WebAssembly memory; replaced when the memory grows (its buffer changes). */
let heap:
  | { readonly buffer: ArrayBufferLike; readonly u8: Uint8Array; readonly i32: Int32Array }
  | undefined;

const utf8 = new TextDecoder();
/** The attributes or children of an element that has none: one frozen list for all. */
const NONE: readonly never[] = Object.freeze([]);
/** The longest ASCII string built character by character rather than by the decoder. */
const SHORT = 32;

/**
 * Reads a parsed document's elements straight out of the WebAssembly
 * memory: one pass over the structs, no call into the module. Names are
 * interned by libxml2, so each distinct pointer is decoded once.
 */
class TreeReader {
  readonly #u8: Uint8Array;
  readonly #i32: Int32Array;
  readonly #strings = new Map<number, string>();

  constructor(structs: typeof Structs) {
    // The library hands out views of its memory, not the memory itself: take the buffer of one.
    const buffer = structs.XmlNodeSetStruct.nodeTable(0, 0).buffer;
    if (heap?.buffer !== buffer) {
      heap = { buffer, u8: new Uint8Array(buffer), i32: new Int32Array(buffer) };
    }
    this.#u8 = heap.u8;
    this.#i32 = heap.i32;
  }

  /** The NUL-terminated UTF-8 string at `at`. */
  #string(at: number): string {
    const u8 = this.#u8;
    let end = at;
    let bits = 0;
    for (let c = u8[end]; c !== 0; c = u8[++end]) bits |= c;
    // Short ASCII (names, most values) is built faster here than by a call into the decoder.
    if (bits < 0x80 && end - at <= SHORT) {
      let s = "";
      for (let i = at; i < end; i++) s += String.fromCharCode(u8[i]);
      return s;
    }
    return utf8.decode(u8.subarray(at, end));
  }

  /** A string libxml2 may have interned (names, namespaces, blank text); "" for none. */
  #interned(at: number): string {
    if (at === 0) return "";
    let s = this.#strings.get(at);
    if (s === undefined) {
      s = this.#string(at);
      this.#strings.set(at, s);
    }
    return s;
  }

  /** An attribute's value: the character data of its children. */
  #text(first: number): string {
    const i32 = this.#i32;
    let text = "";
    for (let c = first; c !== 0; c = i32[(c >> 2) + NEXT]) {
      const type = i32[(c >> 2) + TYPE];
      if (type === TEXT_NODE || type === CDATA_NODE) {
        text += this.#interned(i32[(c >> 2) + CONTENT]);
      }
    }
    return text;
  }

  element(node: number, inherited: Readonly<Record<string, string>>): ParsedElement {
    const i32 = this.#i32;
    const at = node >> 2;
    let scope = inherited;
    const declared = i32[at + NS_DEF];
    if (declared !== 0) {
      const own: Record<string, string> = { ...inherited };
      for (let ns = declared; ns !== 0; ns = i32[(ns >> 2) + NS_NEXT]) {
        own[this.#interned(i32[(ns >> 2) + NS_PREFIX])] = this.#interned(i32[(ns >> 2) + NS_HREF]);
      }
      scope = own;
    }
    let attrs: ParsedElement["attrs"][number][] | undefined;
    for (let a = i32[at + PROPERTIES]; a !== 0; a = i32[(a >> 2) + NEXT]) {
      const ns = i32[(a >> 2) + NS];
      (attrs ??= []).push({
        uri: ns === 0 ? "" : this.#interned(i32[(ns >> 2) + NS_HREF]),
        local: this.#interned(i32[(a >> 2) + NAME]),
        value: this.#text(i32[(a >> 2) + CHILDREN]),
      });
    }
    let children: ParsedElement[] | undefined;
    let text = "";
    for (let c = i32[at + CHILDREN]; c !== 0; c = i32[(c >> 2) + NEXT]) {
      const type = i32[(c >> 2) + TYPE];
      if (type === ELEMENT_NODE) (children ??= []).push(this.element(c, scope));
      else if (type === TEXT_NODE || type === CDATA_NODE) {
        text += this.#interned(i32[(c >> 2) + CONTENT]);
      }
    }
    const ns = i32[at + NS];
    const local = this.#interned(i32[at + NAME]);
    const prefix = ns === 0 ? "" : this.#interned(i32[(ns >> 2) + NS_PREFIX]);
    const line = i32[at + LINE];
    return {
      uri: ns === 0 ? "" : this.#interned(i32[(ns >> 2) + NS_HREF]),
      local,
      name: prefix === "" ? local : `${prefix}:${local}`,
      attrs: attrs ?? NONE,
      children: children ?? NONE,
      text,
      scope,
      line,
      tagEndLine: line,
    };
  }
}

/** No network, no external entities, no DTD loading: a document is only its own bytes. */
function safe(lib: Library): number {
  return lib.ParseOption.XML_PARSE_NONET | lib.ParseOption.XML_PARSE_NO_XXE;
}

/**
 * Parses a document's text as the UTF-8 it is handed on in. The text is
 * encoded natively and parsed from the bytes: the library's own string
 * input encodes in JavaScript, several times slower, to the same effect.
 */
function parseText(lib: Library, document: string): Libxml2.XmlDocument {
  return lib.XmlDocument.fromBuffer(encoder.encode(document), { url: DOCUMENT, option: safe(lib) });
}

function schemaOf(lib: Library, validator: Libxml2.XsdValidator): CompiledSchema {
  return {
    check(document: string): DocumentCheck {
      let doc: Libxml2.XmlDocument;
      try {
        doc = parseText(lib, document);
      } catch (e) {
        const first = messagesOf(e, undefined)[0];
        return { malformed: first ?? { line: 0, column: 0, message: String(e) } };
      }
      try {
        validator.validate(doc);
        return { violations: [] };
      } catch (e) {
        if (!(e instanceof lib.XmlLibError)) throw e;
        return { violations: messagesOf(e, undefined) };
      } finally {
        doc.dispose();
      }
    },
  };
}

/** libxml2's details of a thrown error; schema files named relative to `base`. */
function messagesOf(error: unknown, base: string | undefined): Libxml2Message[] {
  const details = (error as { details?: Libxml2.ErrorDetail[] }).details;
  if (!Array.isArray(details)) {
    return [{
      line: 0,
      column: 0,
      message: error instanceof Error ? error.message : String(error),
    }];
  }
  const out: Libxml2Message[] = [];
  for (const d of details) {
    const message = d.message.trimEnd();
    const position = { line: d.line, column: d.col, message };
    if (d.file === DOCUMENT) out.push(position);
    else if (base !== undefined && d.file?.startsWith(base)) {
      out.push({ file: d.file.slice(base.length), ...position });
    } else if (base !== undefined) out.push({ file: "", ...position });
  }
  return out;
}
