/**
 * A minimal namespace-aware element tree for the TCK test files (the DMN
 * library keeps its own XML reader internal).
 *
 * @module
 */
import { SaxesParser } from "saxes";

/** The XML Schema instance namespace (`xsi:type`, `xsi:nil`). */
export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

/** One element. */
export interface XmlElement {
  /** Namespace URI. */
  readonly ns: string;
  /** Local name. */
  readonly name: string;
  /** Unqualified attributes by name; qualified ones as `{uri}local`. */
  readonly attrs: ReadonlyMap<string, string>;
  /** Child elements. */
  readonly children: XmlElement[];
  /** Character data directly inside. */
  text: string;
}

/** Parses `text`; the first error (with its line) instead of a tree when it is not well-formed. */
export function parseXml(
  text: string,
): { root: XmlElement; error?: undefined } | {
  root?: undefined;
  error: { message: string; line: number };
} {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let error: { message: string; line: number } | undefined;
  parser.on("opentag", (tag) => {
    const attrs = new Map<string, string>();
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix === "xmlns" || a.name === "xmlns") continue;
      attrs.set(a.uri === "" ? a.local : `{${a.uri}}${a.local}`, a.value);
    }
    const e: XmlElement = { ns: tag.uri, name: tag.local, attrs, children: [], text: "" };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root ??= e;
    else parent.children.push(e);
    stack.push(e);
  });
  parser.on("closetag", () => void stack.pop());
  const onText = (t: string) => {
    const top = stack[stack.length - 1];
    if (top !== undefined) top.text += t;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("error", (e) => void (error ??= { message: e.message, line: parser.line }));
  parser.write(text).close();
  if (error !== undefined) return { error };
  return root === undefined ? { error: { message: "empty document", line: 1 } } : { root };
}

/** The unqualified attribute `name`. */
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
