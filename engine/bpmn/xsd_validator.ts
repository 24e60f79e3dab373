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

/** Where compiled schemas' files live for libxml2 (`sutra-xsd://<compile>/<file>`). */
const SCHEME = "sutra-xsd://";

let library: Promise<Library> | undefined;
/** Files libxml2 may open, by URL; present only while their schema compiles. */
const served = new Map<string, Uint8Array>();
const open = new Map<number, { bytes: Uint8Array; at: number }>();
let nextHandle = 0;
let nextCompile = 0;
let compilations = 0;

function load(): Promise<Library> {
  library ??= import("libxml2-wasm").then((lib) => {
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
    return lib;
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
  const lib = await load();
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
  return { schema: schemaOf(lib, validator) };
}

/** No network, no external entities, no DTD loading: a document is only its own bytes. */
function safe(lib: Library): number {
  return lib.ParseOption.XML_PARSE_NONET | lib.ParseOption.XML_PARSE_NO_XXE;
}

function schemaOf(lib: Library, validator: Libxml2.XsdValidator): CompiledSchema {
  const option = safe(lib);
  return {
    check(document: string): DocumentCheck {
      let doc: Libxml2.XmlDocument;
      try {
        doc = lib.XmlDocument.fromString(document, { url: DOCUMENT, option });
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
