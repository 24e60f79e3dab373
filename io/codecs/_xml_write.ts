/**
 * Writes data as an XML element tree: the inverse of the payload view. It
 * serves two directions: a JSON or YAML document validated against an XSD
 * (the canonical mapping), and replies encoded as XML.
 *
 * The mapping, for an element's value:
 * - null is `xsi:nil="true"`; a scalar is the element's text; a list is
 *   the element repeated once per item;
 * - a context's keys become attributes where the schema declares an
 *   attribute of that name (or the key is `@name`), the text where the key is
 *   the view's text key (`value`, or `#text`), and child elements otherwise —
 *   declared children in the schema's order, then the rest in key order.
 *
 * Every start tag is written on its own line (line breaks inside values are
 * character references), so libxml2's line numbers identify the element a
 * violation is about.
 *
 * @module
 */
import { Decimal } from "decimal.js";
import { type Issue, issue } from "../../engine/core/codec.ts";
import { MAX_NESTING_DEPTH } from "../../engine/core/input_limits.ts";
import { pointerSegment } from "./_text.ts";
import { type XmlAttr, type XmlNode, XSI } from "./_xml_tree.ts";
import { type KeyLayout, keyLayout } from "./_xml_view.ts";
import type { XsdComplexType, XsdElement } from "./_xsd_model.ts";

/** The written document. */
export interface XmlWritten {
  /** The XML text (UTF-8 when encoded; no declaration). */
  readonly text: string;
  /** The tree the text serialises, with the lines each element is written on. */
  readonly root: XmlNode;
  /** JSON Pointer (into the written value) of the element written on each line. */
  readonly lines: ReadonlyMap<number, string>;
  /** Keys and values that have no XML form (they are left out of `text`). */
  readonly issues: readonly Issue[];
}

/** Options for {@link writeXml}. */
export interface WriteXmlOptions {
  /** The root's declaration, for attribute placement, order and namespaces. */
  readonly declaration?: XsdElement;
  /** The code unwritable keys and values are reported with. */
  readonly code: string;
  /** Levels of elements the value may nest (the root is level 1); deeper is refused. */
  readonly maxDepth?: number;
  /** The code a value nested deeper than `maxDepth` is refused with; `code` when absent. */
  readonly tooDeepCode?: string;
}

const NAME = /^[A-Za-z_\u00C0-\uFFFD][A-Za-z0-9._\-\u00B7\u00C0-\uFFFD]*$/;
// Characters XML 1.0 cannot carry at all.
// deno-lint-ignore no-control-regex
const ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
// deno-lint-ignore no-control-regex
const ILLEGAL_ALL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Signals a value nested beyond the depth limit, at the JSON Pointer of the first element too deep. */
class TooDeep {
  constructor(readonly at: string) {}
}

/** The written document, or why the value cannot be written at all. */
export type XmlWrite = XmlWritten | { readonly refused: Issue };

/** Writes `value` as the element `rootName`; never throws. */
export function writeXml(rootName: string, value: unknown, options: WriteXmlOptions): XmlWrite {
  const writer = new Writer(options);
  const declaration = options.declaration;
  try {
    const root = writer.element(rootName, declaration?.uri ?? "", value, declaration, "", 0);
    return { text: writer.finish(), root, lines: writer.pointers, issues: writer.issues };
  } catch (e) {
    if (!(e instanceof TooDeep)) throw e;
    const limit = options.maxDepth ?? MAX_NESTING_DEPTH;
    return {
      refused: issue(
        options.tooDeepCode ?? options.code,
        `the value nests deeper than ${limit} levels of XML elements`,
        { path: e.at },
      ),
    };
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\r": "&#13;",
  "\n": "&#10;",
  '"': "&quot;",
  "\t": "&#9;",
};
const escape = (c: string) => ESCAPES[c];
// Most values need no escaping: testing first spares them the replacement.
const TEXT_SPECIAL = /[&<>\r\n]/;
const TEXT_SPECIALS = /[&<>\r\n]/g;
const ATTR_SPECIAL = /[&<>\r\n"\t]/;
const ATTR_SPECIALS = /[&<>\r\n"\t]/g;

function escapeText(text: string): string {
  return TEXT_SPECIAL.test(text) ? text.replace(TEXT_SPECIALS, escape) : text;
}

function escapeAttr(text: string): string {
  return ATTR_SPECIAL.test(text) ? text.replace(ATTR_SPECIALS, escape) : text;
}

function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
  }
  if (Decimal.isDecimal(value)) return value.toString();
  return undefined;
}

interface Building {
  uri: string;
  local: string;
  name: string;
  attrs: XmlAttr[];
  children: XmlNode[];
  text: string;
  scope: Record<string, string>;
  line: number;
  tagEndLine: number;
}

// A compiled model is immutable, so a type's key layout is worked out once, not once per element.
const layouts = new WeakMap<XsdComplexType, KeyLayout>();

function layoutOf(type: XsdComplexType): KeyLayout {
  let layout = layouts.get(type);
  if (layout === undefined) {
    layout = keyLayout(
      type.particles.map((p) => p.element.name),
      type.attributes.map((a) => a.name),
      type.text !== undefined || type.mixed,
    );
    layouts.set(type, layout);
  }
  return layout;
}

class Writer {
  readonly issues: Issue[] = [];
  readonly pointers = new Map<number, string>();
  readonly #lines: string[] = [];
  readonly #prefixes = new Map<string, string>();
  readonly #code: string;
  readonly #maxDepth: number;

  constructor(options: WriteXmlOptions) {
    this.#code = options.code;
    this.#maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
  }

  #qualified(uri: string, local: string): string {
    if (uri === "") return local;
    let prefix = this.#prefixes.get(uri);
    if (prefix === undefined) {
      prefix = uri === XSI ? "xsi" : `n${this.#prefixes.size}`;
      this.#prefixes.set(uri, prefix);
    }
    return `${prefix}:${local}`;
  }

  #problem(at: string, message: string): void {
    this.issues.push(issue(this.#code, message, { path: at }));
  }

  /** The text a string gives XML, reporting characters XML cannot carry. */
  #clean(text: string, at: string): string {
    if (!ILLEGAL.test(text)) return text;
    this.#problem(at, "the value contains a control character XML cannot carry");
    return text.replace(ILLEGAL_ALL, "");
  }

  element(
    local: string,
    uri: string,
    value: unknown,
    declaration: XsdElement | undefined,
    at: string,
    depth: number,
  ): XmlNode {
    // `depth` counts from 0 at the root, so it is the level minus one.
    if (depth >= this.#maxDepth) throw new TooDeep(at);
    const name = this.#qualified(uri, local);
    const line = this.#lines.length + 1;
    const node: Building = {
      uri,
      local,
      name,
      attrs: [],
      children: [],
      text: "",
      scope: {},
      line,
      tagEndLine: line,
    };
    this.pointers.set(line, at);
    this.#lines.push(""); // the start tag, written once the attributes are known
    if (value === null || value === undefined) {
      node.attrs.push({ uri: XSI, local: "nil", value: "true" });
      this.#lines[line - 1] = `<${name} ${this.#qualified(XSI, "nil")}="true"/>`;
      return node;
    }
    const scalar = scalarText(value);
    if (scalar !== undefined) {
      node.text = scalar;
      this.#lines[line - 1] = `<${name}>${escapeText(this.#clean(scalar, at))}</${name}>`;
      return node;
    }
    if (Array.isArray(value) || typeof value !== "object") {
      this.#problem(
        at,
        Array.isArray(value)
          ? "a list inside a list has no XML form"
          : `a ${typeof value} has no XML form`,
      );
      this.#lines[line - 1] = `<${name}/>`;
      return node;
    }
    this.#content(node, value as Record<string, unknown>, declaration, at, depth);
    const attrs = node.attrs.map((a) =>
      ` ${this.#qualified(a.uri, a.local)}="${escapeAttr(this.#clean(a.value, at))}"`
    ).join("");
    const text = escapeText(this.#clean(node.text, at));
    if (node.children.length === 0) {
      this.#lines[line - 1] = `<${name}${attrs}>${text}</${name}>`;
    } else {
      this.#lines[line - 1] = `<${name}${attrs}>${text}`;
      this.#lines.push(`</${name}>`);
    }
    return node;
  }

  #content(
    node: Building,
    value: Record<string, unknown>,
    declaration: XsdElement | undefined,
    at: string,
    depth: number,
  ): void {
    const type = declaration?.type.kind === "complex" && !declaration.type.any
      ? declaration.type as XsdComplexType
      : undefined;
    const layout = type ? layoutOf(type) : undefined;
    const used = new Set<string>();
    const keyAt = (key: string) => `${at}/${pointerSegment(key)}`;
    if (type && layout) {
      for (const a of type.attributes) {
        const key = layout.attributes.get(a.name)!;
        const text = Object.hasOwn(value, key) ? scalarText(value[key]) : undefined;
        if (text === undefined) continue;
        used.add(key);
        node.attrs.push({ uri: a.uri, local: a.name, value: text });
      }
      if (layout.text !== undefined && Object.hasOwn(value, layout.text)) {
        const text = scalarText(value[layout.text]);
        if (text !== undefined) {
          used.add(layout.text);
          node.text = text;
        }
      }
      for (const p of type.particles) {
        const key = p.element.name;
        if (!Object.hasOwn(value, key) || used.has(key)) continue;
        used.add(key);
        this.#children(node, key, p.element.uri, value[key], p.element, keyAt(key), depth);
      }
    }
    for (const key of Object.keys(value)) {
      if (used.has(key)) continue;
      const v = value[key];
      if (key === "#text" && scalarText(v) !== undefined) {
        node.text = scalarText(v)!;
      } else if (key.startsWith("@") && NAME.test(key.slice(1)) && scalarText(v) !== undefined) {
        node.attrs.push({ uri: "", local: key.slice(1), value: scalarText(v)! });
      } else if (NAME.test(key) && !key.includes(":")) {
        this.#children(node, key, "", v, undefined, keyAt(key), depth);
      } else {
        this.#problem(keyAt(key), `'${key}' is not an XML element name`);
      }
    }
  }

  #children(
    parent: Building,
    local: string,
    uri: string,
    value: unknown,
    declaration: XsdElement | undefined,
    at: string,
    depth: number,
  ): void {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        parent.children.push(this.element(local, uri, item, declaration, `${at}/${i}`, depth + 1));
      });
    } else {
      parent.children.push(this.element(local, uri, value, declaration, at, depth + 1));
    }
  }

  /** The document text, with every namespace used declared on the root. */
  finish(): string {
    const declarations = [...this.#prefixes].map(([uri, prefix]) =>
      ` xmlns:${prefix}="${escapeAttr(uri)}"`
    ).join("");
    const first = this.#lines[0];
    const nameEnd = first.search(/[ />]/);
    this.#lines[0] = first.slice(0, nameEnd) + declarations + first.slice(nameEnd);
    return this.#lines.join("\n") + "\n";
  }
}
