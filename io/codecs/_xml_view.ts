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
  let first = -1;
  let last = -1;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x65 || c === 0x45) break; // e, E: the exponent
    if (c < 0x30 || c > 0x39) continue; // a sign or the point
    if (c !== 0x30) {
      if (first < 0) first = digits;
      last = digits;
    }
    digits++;
  }
  return first < 0 ? 0 : last - first + 1;
}

const XML_SPACE = /[ \t\r\n]/;

/** XSD whitespace handling: strings keep theirs, other built-ins collapse. */
function normalise(text: string, builtin: string): string {
  if (builtin === "string") return text;
  if (builtin === "normalizedString") return text.replace(/[\t\r\n]/g, " ");
  // Most values hold no white space to collapse: only the trim is left to do.
  if (!XML_SPACE.test(text)) return text.trim();
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

/** The value of `text` under a simple type; text that does not parse stays text. */
export function scalarValue(text: string, type: XsdSimpleType): unknown {
  const value = normalise(text, type.builtin);
  switch (scalarKind(type)) {
    case "number":
      if (!DECIMAL.test(value)) return value;
      // A literal of 15 characters or fewer cannot hold more than 15 digits.
      return value.length <= 15 || significantDigits(value) <= 15
        ? Number(value)
        : feelNumber(value) ?? value;
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
  /**
   * Key layouts of elements whose children are all declared particles, by
   * their attributes' names and whether they carry text: the keys depend on
   * nothing else.
   */
  readonly layouts: Map<string, KeyLayout>;
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
    found = {
      particles,
      declared: new Map(type.attributes.map((a) => [a.name, a])),
      layouts: new Map(),
    };
    lookups.set(type, found);
  }
  return found;
}

const MAX_LAYOUTS = 64;

/** The key layout of an element of a complex type; looked up once per shape of element. */
function complexLayout(
  lookups: TypeLookups,
  groups: ReadonlyMap<string, readonly XmlNode[]>,
  attrs: readonly { readonly local: string }[],
  text: boolean,
): KeyLayout {
  const { particles, layouts } = lookups;
  let declaredOnly = true;
  for (const name of groups.keys()) {
    if (!particles.has(name)) declaredOnly = false;
  }
  if (!declaredOnly) {
    const names = new Set([...particles.keys(), ...groups.keys()]);
    return keyLayout(names, attrs.map((a) => a.local), text);
  }
  let key = text ? "t" : "-";
  for (const a of attrs) key += ` ${a.local}`;
  let layout = layouts.get(key);
  if (layout === undefined) {
    layout = keyLayout(particles.keys(), attrs.map((a) => a.local), text);
    // Attribute names come from the message: a bound keeps odd messages from growing the cache.
    if (layouts.size < MAX_LAYOUTS) layouts.set(key, layout);
  }
  return layout;
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

  /** The JSON Pointer of item `index` of the list at `at`; only worked out when tracked. */
  itemAt(at: string, index: number): string {
    return this.track ? `${at}/${index}` : "";
  }

  complex(node: XmlNode, type: XsdComplexType, at: string): unknown {
    const groups = groupChildren(node);
    const lookups = lookupsOf(type);
    const { particles, declared } = lookups;
    const attrs = dataAttributes(node);
    let text: unknown;
    if (type.text) text = scalarValue(node.text, type.text);
    else if (!BLANK.test(node.text)) text = node.text.trim();
    const layout = complexLayout(lookups, groups, attrs, text !== undefined);
    const out: Record<string, unknown> = {};
    for (const a of attrs) {
      const d = declared.get(a.local);
      put(out, layout.attributes.get(a.local)!, d ? scalarValue(a.value, d.type) : a.value);
    }
    for (const [name, nodes] of groups) {
      const particle = particles.get(name);
      const base = this.childAt(at, name);
      if ((particle !== undefined && particle.maxOccurs > 1) || nodes.length > 1) {
        put(
          out,
          name,
          nodes.map((n, i) => this.element(n, particle?.element, this.itemAt(base, i))),
        );
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
          ? nodes.map((n, i) => this.element(n, undefined, this.itemAt(base, i)))
          : this.element(nodes[0], undefined, base),
      );
    }
    if (layout.text !== undefined) put(out, layout.text, text);
    return out;
  }
}
