/**
 * A namespace-resolved XML element tree built with saxes, where every
 * element remembers where it sits in the source text. The BPMN reader works
 * on this tree rather than on SAX events so that it can look ahead (ids,
 * references) while still pointing every diagnostic at a line.
 *
 * @module
 */
import { SaxesParser, type SaxesTagNS } from "saxes";
import { SourceText } from "./_source.ts";
import { errorMessage } from "../core/errors.ts";

/** One attribute, namespace resolved (`uri` is "" for unprefixed attributes). */
export interface XmlAttribute {
  readonly uri: string;
  readonly local: string;
  /** The name as written, prefix included. */
  readonly name: string;
  readonly value: string;
}

/** One element of the tree. Offsets index the decoded source text. */
export interface XmlElement {
  readonly uri: string;
  readonly local: string;
  /** The name as written, prefix included. */
  readonly name: string;
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlElement[];
  /** Character data directly inside the element (text and CDATA), undecorated. */
  readonly text: string;
  /** Prefix → namespace bindings in scope (the default namespace under ""). */
  readonly ns: Readonly<Record<string, string>>;
  /** Offset of the `<` that opens the element. */
  readonly start: number;
  /** Offset just past the `>` of the start tag (equals `end` for `<x/>`). */
  readonly contentStart: number;
  /** Offset of the `<` of the end tag (equals `end` for `<x/>`). */
  readonly contentEnd: number;
  /** Offset just past the element's last character. */
  readonly end: number;
  /** 1-based line of the `<`. */
  readonly line: number;
  /** 1-based column of the `<`. */
  readonly column: number;
}

/** A parsed document: its text (for positions) and its root element. */
export interface XmlDocument {
  readonly source: SourceText;
  readonly root: XmlElement;
}

/** A well-formedness problem, with its position. */
export interface XmlProblem {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** Either a document or every well-formedness problem found. */
export type XmlParseResult =
  | { readonly ok: true; readonly document: XmlDocument }
  | { readonly ok: false; readonly problems: readonly XmlProblem[] };

interface Building {
  uri: string;
  local: string;
  name: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  text: string;
  ns: Record<string, string>;
  start: number;
  contentStart: number;
  contentEnd: number;
  end: number;
  line: number;
  column: number;
}

// saxes keeps going after an error; past this many the rest is noise.
const MAX_PROBLEMS = 20;

/**
 * Elements may nest this deep; the readers and checks after the parse walk
 * the tree recursively, and a model needs a few dozen levels at most.
 */
export const MAX_XML_DEPTH = 256;

/**
 * Where the text's elements first nest past {@link MAX_XML_DEPTH}, by a
 * linear scan of its tags (comments, CDATA, declarations and processing
 * instructions skipped, quoted `>` in attributes honoured). saxes resolves
 * namespaces through every enclosing element, so on a hostile document ten
 * thousand levels deep it would take minutes before the limit below could
 * say anything; malformed text is left for saxes to describe.
 */
function tooDeepAt(text: string): number | undefined {
  let depth = 0;
  for (let i = text.indexOf("<"); i >= 0 && i < text.length; i = text.indexOf("<", i)) {
    const next = text[i + 1];
    if (next === "!" || next === "?") {
      const close = text.startsWith("<!--", i)
        ? "-->"
        : text.startsWith("<![CDATA[", i)
        ? "]]>"
        : ">";
      const end = text.indexOf(close, i + 2);
      if (end < 0) return undefined;
      i = end + close.length;
      continue;
    }
    if (next === "/") {
      depth--;
      i += 2;
      continue;
    }
    let j = i + 1;
    let quote = "";
    for (; j < text.length; j++) {
      const c = text[j];
      if (quote !== "") {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ">") break;
    }
    if (j >= text.length) return undefined;
    if (text[j - 1] !== "/" && ++depth > MAX_XML_DEPTH) return i;
    i = j + 1;
  }
  return undefined;
}

/** Parses XML text into an element tree; never throws on bad input. */
export function parseXml(text: string): XmlParseResult {
  const source = new SourceText(text);
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    const where = source.locate(deep);
    return {
      ok: false,
      problems: [{
        message: `elements nest deeper than ${MAX_XML_DEPTH} levels`,
        line: where.line,
        column: where.column,
      }],
    };
  }
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Building[] = [];
  const problems: XmlProblem[] = [];
  let root: Building | undefined;

  parser.on("error", (error) => {
    if (problems.length >= MAX_PROBLEMS) return;
    // saxes prefixes its messages with "line:column: "; keep only the reason.
    const message = error.message.replace(/^\d+:\d+: /, "");
    problems.push({ message, line: parser.line, column: parser.column + 1 });
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    const contentStart = parser.position;
    // saxes reports positions after the tag; the `<` is the last one before it.
    const start = text.lastIndexOf("<", contentStart - 1);
    const where = source.locate(start);
    const element: Building = {
      uri: tag.uri,
      local: tag.local,
      name: tag.name,
      attributes: Object.values(tag.attributes).map((a) => ({
        uri: a.uri,
        local: a.local,
        name: a.name,
        value: a.value,
      })),
      children: [],
      text: "",
      ns: { ...tag.ns },
      start,
      contentStart,
      contentEnd: contentStart,
      end: contentStart,
      line: where.line,
      column: where.column,
    };
    const parent = stack.at(-1);
    if (parent) {
      element.ns = { ...parent.ns, ...tag.ns };
      parent.children.push(element);
    } else {
      root ??= element;
    }
    stack.push(element);
  });
  parser.on("closetag", (tag) => {
    const element = stack.pop();
    if (!element) return;
    element.end = parser.position;
    element.contentEnd = tag.isSelfClosing ? element.end : text.lastIndexOf("</", element.end - 1);
    if (tag.isSelfClosing) element.contentStart = element.end;
  });
  const onText = (data: string) => {
    const top = stack.at(-1);
    if (top) top.text += data;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);

  try {
    parser.write(text).close();
  } catch (error) {
    // Without an error handler saxes throws; with one it should not, but a
    // parser bug must still surface as a problem rather than escape.
    problems.push({
      message: errorMessage(error),
      line: parser.line,
      column: parser.column + 1,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  if (!root) return { ok: false, problems: [{ message: "no root element", line: 1, column: 1 }] };
  return { ok: true, document: { source, root } };
}

/** The value of an unprefixed attribute (or of `{uri}local` when `uri` is given). */
export function attribute(element: XmlElement, local: string, uri = ""): string | undefined {
  for (const a of element.attributes) {
    if (a.local === local && a.uri === uri) return a.value;
  }
  return undefined;
}

/**
 * The namespace the prefix of a QName value (`tns:child`) is bound to on
 * `element`; undefined for a value without a prefix or with an unbound one.
 */
export function qnameNamespace(element: XmlElement, value: string | undefined): string | undefined {
  const colon = value?.indexOf(":") ?? -1;
  return colon > 0 ? element.ns[value!.slice(0, colon)] : undefined;
}

/** The attribute object itself, for callers that need its written name. */
export function attributeNode(
  element: XmlElement,
  local: string,
  uri = "",
): XmlAttribute | undefined {
  return element.attributes.find((a) => a.local === local && a.uri === uri);
}
