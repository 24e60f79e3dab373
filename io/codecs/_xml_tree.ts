/**
 * An XML element tree built with saxes for the XML-based codecs: names
 * resolved against namespaces, character data collected, and the lines
 * libxml2 reports an element on (the line its start tag ends) remembered so
 * schema violations can be tied back to an element.
 *
 * @module
 */
import { SaxesParser, type SaxesTagNS } from "saxes";
import { type Issue, issue } from "../../engine/core/codec.ts";
import { errorMessage } from "../../engine/core/errors.ts";
import { MAX_NESTING_DEPTH } from "../../engine/core/input_limits.ts";

/** The XML Schema instance namespace (`xsi:nil`, `xsi:type`, …). */
export const XSI = "http://www.w3.org/2001/XMLSchema-instance";

/** One attribute (`uri` is "" for an unprefixed attribute). */
export interface XmlAttr {
  readonly uri: string;
  readonly local: string;
  readonly value: string;
}

/** One element. */
export interface XmlNode {
  readonly uri: string;
  readonly local: string;
  /** The name as written, prefix included. */
  readonly name: string;
  /** Attributes, namespace declarations excluded. */
  readonly attrs: readonly XmlAttr[];
  readonly children: readonly XmlNode[];
  /** Character data directly inside the element, as written. */
  readonly text: string;
  /** Prefix → namespace bindings in scope ("" is the default namespace). */
  readonly scope: Readonly<Record<string, string>>;
  /** 1-based line of the element's name. */
  readonly line: number;
  /** 1-based line where the start tag ends (what libxml2 reports). */
  readonly tagEndLine: number;
}

/** Options for {@link parseXmlTree}. */
export interface XmlTreeOptions {
  /** Accept a DOCTYPE (schema documents may carry one; payloads may not). */
  readonly allowDoctype?: boolean;
  /** Nesting depth beyond which the document is refused. */
  readonly maxDepth?: number;
}

/** A root element, or the FATAL issue that stopped the parse. */
export type XmlTreeResult =
  | { readonly root: XmlNode; readonly issue?: undefined }
  | { readonly root?: undefined; readonly issue: Issue };

interface Building {
  uri: string;
  local: string;
  name: string;
  attrs: XmlAttr[];
  children: Building[];
  text: string;
  scope: Record<string, string>;
  line: number;
  tagEndLine: number;
}

const DEFAULT_MAX_DEPTH = MAX_NESTING_DEPTH;
const NO_SCOPE: Record<string, string> = {};

/** Signals the first fatal problem out of saxes' callbacks. */
class Stop {
  constructor(readonly issue: Issue) {}
}

/** Parses XML text into an element tree; never throws. */
export function parseXmlTree(text: string, options: XmlTreeOptions = {}): XmlTreeResult {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Building[] = [];
  let root: Building | undefined;
  let startLine = 1;

  const stop = (code: string, message: string): never => {
    throw new Stop(issue(code, message, { line: parser.line, column: parser.column + 1 }));
  };
  parser.on("error", (e) => stop("SUTRA.PARSE.XML.MALFORMED", e.message.replace(/^\d+:\d+: /, "")));
  parser.on("doctype", () => {
    if (!options.allowDoctype) {
      stop("SUTRA.PARSE.XML.DOCTYPE_FORBIDDEN", "a payload may not carry a DOCTYPE declaration");
    }
  });
  parser.on("opentagstart", () => {
    startLine = parser.line;
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    if (stack.length >= maxDepth) {
      stop("SUTRA.PARSE.XML.TOO_DEEP", `elements nest deeper than ${maxDepth} levels`);
    }
    const parent = stack.at(-1);
    const inherited = parent?.scope ?? NO_SCOPE;
    const declares = Object.keys(tag.ns).length > 0;
    const attrs: XmlAttr[] = [];
    for (const key in tag.attributes) {
      const a = tag.attributes[key];
      if (a.prefix === "xmlns" || a.name === "xmlns") continue;
      attrs.push({ uri: a.uri, local: a.local, value: a.value });
    }
    const node: Building = {
      uri: tag.uri,
      local: tag.local,
      name: tag.name,
      attrs,
      children: [],
      text: "",
      scope: declares ? { ...inherited, ...tag.ns } : inherited,
      line: startLine,
      tagEndLine: parser.line,
    };
    if (parent) parent.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  const onText = (data: string) => {
    const top = stack.at(-1);
    if (top) top.text += data;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);

  try {
    parser.write(text).close();
  } catch (e) {
    if (e instanceof Stop) return { issue: e.issue };
    return {
      issue: issue("SUTRA.PARSE.XML.MALFORMED", errorMessage(e)),
    };
  }
  if (root === undefined) {
    return { issue: issue("SUTRA.PARSE.XML.MALFORMED", "the document has no root element") };
  }
  return { root };
}
