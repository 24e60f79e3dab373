/**
 * A small namespace-aware XML element tree with source positions, built with
 * `npm:saxes`. DMN models and TCK test files are read through it: both need
 * namespace resolution (any prefix may be used) and the line of every element
 * for diagnostics.
 *
 * @module
 */
import { SaxesParser } from "saxes";

/** The XML Schema instance namespace (`xsi:type`, `xsi:nil`). */
export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

/** One element: its expanded name, attributes, children, text and position. */
export interface XmlElement {
  /** Namespace URI ("" when none). */
  readonly ns: string;
  /** Local name. */
  readonly name: string;
  /** Unqualified attributes by local name; qualified ones as `{uri}local`. */
  readonly attrs: ReadonlyMap<string, string>;
  /** Child elements in document order. */
  readonly children: XmlElement[];
  /** Character data directly inside the element (CDATA included), unnormalised. */
  text: string;
  /** 1-based line of the start tag. */
  readonly line: number;
  /** 1-based column of the start tag. */
  readonly column: number;
  /** 1-based line where the element's content begins (just after the start tag). */
  readonly contentLine: number;
  /** 1-based column where the element's content begins. */
  readonly contentColumn: number;
  /** Resolves a namespace prefix in scope at this element ("" for the default namespace). */
  readonly resolve: (prefix: string) => string | undefined;
}

/** A well-formedness or namespace error. */
export interface XmlError {
  /** What the parser reported. */
  readonly message: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

/** The outcome of {@link parseXml}: the root element, or the first error. */
export type XmlResult =
  | { readonly root: XmlElement; readonly error?: undefined }
  | { readonly root?: undefined; readonly error: XmlError };

const POSITION_PREFIX = /^\d+:\d+: /;

/** Parses `text` into an element tree; never throws. */
export function parseXml(text: string): XmlResult {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  const scopes: ((prefix: string) => string | undefined)[] = [];
  let root: XmlElement | undefined;
  let error: XmlError | undefined;
  let startLine = 1;
  let startColumn = 1;
  parser.on("opentagstart", (tag) => {
    // The parser has read the name and the character after it.
    startLine = parser.line;
    startColumn = Math.max(parser.column - tag.name.length - 1, 1);
  });
  parser.on("opentag", (tag) => {
    const attrs = new Map<string, string>();
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix === "xmlns" || a.name === "xmlns") continue;
      attrs.set(a.uri === "" ? a.local : `{${a.uri}}${a.local}`, a.value);
    }
    const declared = new Map(Object.entries(tag.ns));
    const outer = scopes[scopes.length - 1] ?? (() => undefined);
    const resolve = declared.size === 0
      ? outer
      : (prefix: string) => declared.get(prefix) ?? outer(prefix);
    const element: XmlElement = {
      ns: tag.uri,
      name: tag.local,
      attrs,
      children: [],
      text: "",
      line: startLine,
      column: startColumn,
      contentLine: parser.line,
      contentColumn: parser.column + 1,
      resolve,
    };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root ??= element;
    else parent.children.push(element);
    stack.push(element);
    scopes.push(resolve);
  });
  parser.on("closetag", () => {
    stack.pop();
    scopes.pop();
  });
  const onText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top !== undefined) top.text += t;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("error", (e) => {
    error ??= {
      message: e.message.replace(POSITION_PREFIX, ""),
      line: parser.line,
      column: Math.max(parser.column, 1),
    };
  });
  try {
    parser.write(text).close();
  } catch (e) {
    // saxes rethrows from close() after an error event in some states.
    error ??= {
      message: e instanceof Error ? e.message.replace(POSITION_PREFIX, "") : String(e),
      line: parser.line,
      column: Math.max(parser.column, 1),
    };
  }
  if (error !== undefined) return { error };
  if (root === undefined) {
    return { error: { message: "the document is empty", line: 1, column: 1 } };
  }
  return { root };
}

/** The unqualified attribute `name`, or undefined. */
export function attr(e: XmlElement, name: string): string | undefined {
  return e.attrs.get(name);
}

/** The attribute `local` in namespace `ns`. */
export function nsAttr(e: XmlElement, ns: string, local: string): string | undefined {
  return e.attrs.get(`{${ns}}${local}`);
}

/** Child elements named `name` in namespace `ns`. */
export function childrenNamed(e: XmlElement, ns: string, name: string): XmlElement[] {
  return e.children.filter((c) => c.ns === ns && c.name === name);
}

/** The first child element named `name` in namespace `ns`. */
export function child(e: XmlElement, ns: string, name: string): XmlElement | undefined {
  return e.children.find((c) => c.ns === ns && c.name === name);
}
