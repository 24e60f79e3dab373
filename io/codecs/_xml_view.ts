/**
 * The payload view of an XML document: the data a FEEL path walks.
 *
 * - The payload is the root element's content; the root's name is the
 *   message type.
 * - An element with neither attributes nor child elements is its text.
 * - Any other element is a context: each child element under its local
 *   name, each attribute under its local name, and non-blank text under
 *   `value`. A child element keeps its plain name when an attribute shares
 *   it (the attribute moves to `@name`); text displaced from `value` moves
 *   to `#text`.
 * - A repeated child element is a list. With a schema, a child the schema
 *   lets repeat is always a list, even with one occurrence.
 * - Namespaces never appear in keys; `xsi:` attributes are not data, and
 *   `xsi:nil="true"` is null.
 * - With a schema, numbers and booleans are typed; numbers with more than 15
 *   significant digits stay exact as FEEL decimals. Dates, times and
 *   durations stay ISO-8601 text.
 *
 * A node that does not match its declaration is viewed as if undeclared:
 * the validator reports it, and no data is lost.
 *
 * @module
 */
import { feelNumber } from "../../lang/feel/mod.ts";
import { put } from "./_data.ts";
import { pointerSegment } from "./_text.ts";
import { type XmlNode, XSI } from "./_xml_tree.ts";
import {
  scalarKind,
  type XsdAttribute,
  type XsdComplexType,
  type XsdElement,
  type XsdParticle,
  type XsdSimpleType,
} from "./_xsd_model.ts";

/** The keys a context built from one element uses. */
export interface KeyLayout {
  /** Attribute local name → key. */
  readonly attributes: ReadonlyMap<string, string>;
  /** The key of the element's text, when it has text. */
  readonly text?: string;
}

/** Names a context's keys: child elements take their own name; attributes and text give way. */
export function keyLayout(
  children: Iterable<string>,
  attributes: Iterable<string>,
  text: boolean,
): KeyLayout {
  const taken = new Set(children);
  const keys = new Map<string, string>();
  for (const a of attributes) {
    const key = taken.has(a) ? `@${a}` : a;
    keys.set(a, key);
    taken.add(key);
  }
  if (!text) return { attributes: keys };
  return { attributes: keys, text: taken.has("value") ? "#text" : "value" };
}

/** A view and, when asked for, the JSON Pointer of every element in it. */
export interface XmlView {
  readonly payload: unknown;
  readonly pointers: ReadonlyMap<XmlNode, string>;
}

/** Views `root` (typed by `declaration` when the schema declares it). */
export function viewXml(
  root: XmlNode,
  declaration?: XsdElement,
  options: { readonly track?: boolean } = {},
): XmlView {
  const builder = new ViewBuilder(options.track === true);
  const payload = builder.element(root, declaration, "");
  return { payload, pointers: builder.pointers };
}

function dataAttributes(node: XmlNode) {
  return node.attrs.filter((a) => a.uri !== XSI);
}

function isNil(node: XmlNode): boolean {
  return node.attrs.some((a) => a.uri === XSI && a.local === "nil" && a.value.trim() === "true");
}

function groupChildren(node: XmlNode): Map<string, XmlNode[]> {
  const groups = new Map<string, XmlNode[]>();
  for (const child of node.children) {
    const list = groups.get(child.local);
    if (list) list.push(child);
    else groups.set(child.local, [child]);
  }
  return groups;
}

const BLANK = /^[ \t\r\n]*$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Significant digits of a decimal literal (exponent excluded). */
function significantDigits(text: string): number {
  const mantissa = text.replace(/^[+-]/, "").replace(/[eE].*$/, "").replace(".", "");
  return mantissa.replace(/^0+/, "").replace(/0+$/, "").length;
}

/** XSD whitespace handling: strings keep theirs, other built-ins collapse. */
function normalise(text: string, builtin: string): string {
  if (builtin === "string") return text;
  if (builtin === "normalizedString") return text.replace(/[\t\r\n]/g, " ");
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

/** The value of `text` under a simple type; text that does not parse stays text. */
export function scalarValue(text: string, type: XsdSimpleType): unknown {
  const value = normalise(text, type.builtin);
  switch (scalarKind(type)) {
    case "number":
      if (!DECIMAL.test(value)) return value;
      return significantDigits(value) <= 15 ? Number(value) : feelNumber(value) ?? value;
    case "boolean":
      if (value === "true" || value === "1") return true;
      if (value === "false" || value === "0") return false;
      return value;
    default:
      return value;
  }
}

/** A complex type's particles and attributes by name, as every view of the type looks them up. */
interface TypeLookups {
  readonly particles: ReadonlyMap<string, XsdParticle>;
  readonly declared: ReadonlyMap<string, XsdAttribute>;
}

// A compiled model is immutable, so the lookups are made once per type, not once per element.
const lookups = new WeakMap<XsdComplexType, TypeLookups>();

function lookupsOf(type: XsdComplexType): TypeLookups {
  let found = lookups.get(type);
  if (found === undefined) {
    const particles = new Map<string, XsdParticle>();
    for (const p of type.particles) {
      if (!particles.has(p.element.name)) particles.set(p.element.name, p);
    }
    found = { particles, declared: new Map(type.attributes.map((a) => [a.name, a])) };
    lookups.set(type, found);
  }
  return found;
}

class ViewBuilder {
  readonly pointers = new Map<XmlNode, string>();

  constructor(readonly track: boolean) {}

  element(node: XmlNode, declaration: XsdElement | undefined, at: string): unknown {
    if (this.track) this.pointers.set(node, at);
    if (isNil(node)) return null;
    const type = declaration?.type;
    if (type === undefined || (type.kind === "complex" && type.any)) return this.untyped(node, at);
    if (type.kind === "simple") {
      if (node.children.length > 0 || dataAttributes(node).length > 0) {
        return this.untyped(node, at);
      }
      return scalarValue(node.text, type);
    }
    return this.complex(node, type, at);
  }

  /** The JSON Pointer of child `name` under `at`; only worked out when pointers are tracked. */
  childAt(at: string, name: string): string {
    return this.track ? `${at}/${pointerSegment(name)}` : "";
  }

  complex(node: XmlNode, type: XsdComplexType, at: string): unknown {
    const groups = groupChildren(node);
    const { particles, declared } = lookupsOf(type);
    const attrs = dataAttributes(node);
    let text: unknown;
    if (type.text) text = scalarValue(node.text, type.text);
    else if (!BLANK.test(node.text)) text = node.text.trim();
    const names = new Set([...particles.keys(), ...groups.keys()]);
    const layout = keyLayout(names, attrs.map((a) => a.local), text !== undefined);
    const out: Record<string, unknown> = {};
    for (const a of attrs) {
      const d = declared.get(a.local);
      put(out, layout.attributes.get(a.local)!, d ? scalarValue(a.value, d.type) : a.value);
    }
    for (const [name, nodes] of groups) {
      const particle = particles.get(name);
      const base = this.childAt(at, name);
      if ((particle !== undefined && particle.maxOccurs > 1) || nodes.length > 1) {
        put(out, name, nodes.map((n, i) => this.element(n, particle?.element, `${base}/${i}`)));
      } else {
        put(out, name, this.element(nodes[0], particle?.element, base));
      }
    }
    if (layout.text !== undefined) put(out, layout.text, text);
    return out;
  }

  untyped(node: XmlNode, at: string): unknown {
    const attrs = dataAttributes(node);
    if (node.children.length === 0 && attrs.length === 0) return node.text;
    const groups = groupChildren(node);
    const text = BLANK.test(node.text) ? undefined : node.text.trim();
    const layout = keyLayout(groups.keys(), attrs.map((a) => a.local), text !== undefined);
    const out: Record<string, unknown> = {};
    for (const a of attrs) put(out, layout.attributes.get(a.local)!, a.value);
    for (const [name, nodes] of groups) {
      const base = this.childAt(at, name);
      put(
        out,
        name,
        nodes.length > 1
          ? nodes.map((n, i) => this.element(n, undefined, `${base}/${i}`))
          : this.element(nodes[0], undefined, base),
      );
    }
    if (layout.text !== undefined) put(out, layout.text, text);
    return out;
  }
}
