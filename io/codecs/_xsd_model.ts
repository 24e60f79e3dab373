/**
 * What an XSD declares, read into a typed model: global elements (the
 * message types), their element trees with occurrence bounds, attributes,
 * scalar base types and facets. The payload view, the JSON/YAML mapping and
 * the FEEL shape are all derived from it; libxml2 stays the judge of
 * validity.
 *
 * Covered: elements (global, local, `ref`), named and anonymous complex and
 * simple types, sequence/choice/all and named groups with occurrence bounds,
 * simple and complex content (extension and restriction), attributes and
 * attribute groups, wildcards, facets, lists and unions, and
 * include/import between the files of one folder.
 *
 * @module
 */
import { isXsdNumeric } from "../../engine/datastore/mod.ts";
import { parseXmlTree, type XmlNode } from "./_xml_tree.ts";

/** The XML Schema namespace. */
export const XS = "http://www.w3.org/2001/XMLSchema";

/** Constraining facets of a simple type (bounds keep their lexical form). */
export interface XsdFacets {
  readonly enumeration?: readonly string[];
  readonly pattern?: readonly string[];
  readonly length?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minInclusive?: string;
  readonly maxInclusive?: string;
  readonly minExclusive?: string;
  readonly maxExclusive?: string;
  readonly totalDigits?: number;
  readonly fractionDigits?: number;
}

/** A simple type: the built-in it derives from, plus facets. */
export interface XsdSimpleType {
  readonly kind: "simple";
  /** Local name of the XSD built-in at the root of the derivation (`decimal`, `date`, …). */
  readonly builtin: string;
  readonly facets: XsdFacets;
  /** A whitespace-separated list type (kept as text). */
  readonly list: boolean;
}

/** An attribute declaration. */
export interface XsdAttribute {
  readonly name: string;
  readonly uri: string;
  readonly type: XsdSimpleType;
  readonly required: boolean;
}

/** A child element slot with its effective occurrence bounds. */
export interface XsdParticle {
  readonly element: XsdElement;
  readonly minOccurs: number;
  /** `Infinity` for unbounded. */
  readonly maxOccurs: number;
}

/** A complex type. */
export interface XsdComplexType {
  readonly kind: "complex";
  readonly attributes: XsdAttribute[];
  readonly particles: XsdParticle[];
  /** The type of the text of a simple-content type. */
  text?: XsdSimpleType;
  mixed: boolean;
  /** An element or attribute wildcard: undeclared content is allowed. */
  open: boolean;
  /** `xs:anyType`: nothing at all is declared. */
  readonly any?: boolean;
}

/** A type. */
export type XsdType = XsdSimpleType | XsdComplexType;

/** An element declaration. */
export interface XsdElement {
  readonly name: string;
  /** Namespace URI ("" for none). */
  readonly uri: string;
  type: XsdType;
  readonly nillable: boolean;
  /** The schema file that declares it (global elements). */
  readonly file?: string;
}

/** A compiled schema folder. */
export interface XsdModel {
  /** Global elements by `{uri}local`. */
  readonly globals: ReadonlyMap<string, XsdElement>;
  /** targetNamespace of every file. */
  readonly namespaces: ReadonlyMap<string, string>;
}

/** A reason the schema set cannot be used. */
export interface XsdProblem {
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

/** The result of {@link compileXsdModel}. */
export type XsdModelResult =
  | { readonly model: XsdModel; readonly problems?: undefined }
  | { readonly model?: undefined; readonly problems: readonly XsdProblem[] };

/** `{uri}local`: a namespace-qualified name as one key. */
export function clark(uri: string, local: string): string {
  return `{${uri}}${local}`;
}

/** The FEEL scalar type of a payload value of this simple type. */
export function scalarKind(type: XsdSimpleType): "number" | "boolean" | "string" {
  if (type.list) return "string";
  if (isXsdNumeric(type.builtin)) return "number";
  return type.builtin === "boolean" ? "boolean" : "string";
}

const STRING: XsdSimpleType = { kind: "simple", builtin: "string", facets: {}, list: false };

/** `xs:anyType`. */
export const ANY_TYPE: XsdComplexType = {
  kind: "complex",
  attributes: [],
  particles: [],
  mixed: true,
  open: true,
  any: true,
};

interface SchemaDoc {
  readonly file: string;
  readonly root: XmlNode;
  readonly tns: string;
  readonly qualifiedElements: boolean;
  readonly qualifiedAttributes: boolean;
}

interface Component {
  readonly node: XmlNode;
  readonly doc: SchemaDoc;
}

type Table = Map<string, Component>;

const COMPONENT_KINDS = [
  "element",
  "complexType",
  "simpleType",
  "group",
  "attributeGroup",
  "attribute",
] as const;
type ComponentKind = typeof COMPONENT_KINDS[number];

/** Signals one unusable construct out of the recursive resolution. */
class Unusable {
  constructor(readonly problem: XsdProblem) {}
}

function xsChildren(node: XmlNode, local?: string): XmlNode[] {
  return node.children.filter((c) => c.uri === XS && (local === undefined || c.local === local));
}

function attr(node: XmlNode, name: string): string | undefined {
  for (const a of node.attrs) if (a.uri === "" && a.local === name) return a.value;
  return undefined;
}

function occurs(node: XmlNode, name: "minOccurs" | "maxOccurs"): number {
  const v = attr(node, name);
  if (v === undefined) return 1;
  if (v === "unbounded") return Infinity;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : 1;
}

/** Reads every schema file and resolves what they declare; reports every problem. */
export function compileXsdModel(files: ReadonlyMap<string, string>): XsdModelResult {
  const problems: XsdProblem[] = [];
  const docs: SchemaDoc[] = [];
  for (const [file, text] of files) {
    const parsed = parseXmlTree(text, { allowDoctype: true });
    if (parsed.issue) {
      problems.push({ file, line: parsed.issue.line, message: parsed.issue.message });
      continue;
    }
    const root = parsed.root;
    if (root.uri !== XS || root.local !== "schema") {
      problems.push({ file, line: root.line, message: "the root element is not xs:schema" });
      continue;
    }
    docs.push({
      file,
      root,
      tns: attr(root, "targetNamespace") ?? "",
      qualifiedElements: attr(root, "elementFormDefault") === "qualified",
      qualifiedAttributes: attr(root, "attributeFormDefault") === "qualified",
    });
  }
  if (problems.length > 0) return { problems };
  const resolver = new Resolver(docs);
  const globals = new Map<string, XsdElement>();
  for (const [key, component] of resolver.tables.element) {
    try {
      globals.set(key, resolver.globalElement(key, component));
    } catch (e) {
      if (!(e instanceof Unusable)) throw e;
      problems.push(e.problem);
    }
  }
  problems.push(...resolver.duplicates);
  if (problems.length > 0) return { problems };
  return { model: { globals, namespaces: new Map(docs.map((d) => [d.file, d.tns])) } };
}

class Resolver {
  readonly tables: Record<ComponentKind, Table> = {
    element: new Map(),
    complexType: new Map(),
    simpleType: new Map(),
    group: new Map(),
    attributeGroup: new Map(),
    attribute: new Map(),
  };
  readonly duplicates: XsdProblem[] = [];
  readonly #types = new Map<string, XsdType>();
  readonly #elements = new Map<string, XsdElement>();

  constructor(docs: readonly SchemaDoc[]) {
    for (const doc of docs) {
      for (const node of doc.root.children) {
        if (node.uri !== XS || !(COMPONENT_KINDS as readonly string[]).includes(node.local)) {
          continue;
        }
        const name = attr(node, "name");
        if (name === undefined) continue;
        const table = this.tables[node.local as ComponentKind];
        const key = clark(doc.tns, name);
        if (table.has(key)) {
          this.duplicates.push({
            file: doc.file,
            line: node.line,
            message: `${node.local} '${name}' is declared twice`,
          });
          continue;
        }
        table.set(key, { node, doc });
      }
    }
  }

  #fail(doc: SchemaDoc, node: XmlNode, message: string): never {
    throw new Unusable({ file: doc.file, line: node.line, message });
  }

  /** Resolves a QName attribute value against the node's namespace scope. */
  #qname(doc: SchemaDoc, node: XmlNode, value: string): { uri: string; local: string } {
    const colon = value.indexOf(":");
    const prefix = colon < 0 ? "" : value.slice(0, colon);
    const local = colon < 0 ? value : value.slice(colon + 1);
    const uri = node.scope[prefix];
    if (uri === undefined && prefix !== "") {
      this.#fail(doc, node, `the prefix '${prefix}' of '${value}' is not declared`);
    }
    return { uri: uri ?? "", local };
  }

  #lookup(kind: ComponentKind, doc: SchemaDoc, node: XmlNode, value: string): Component {
    const { uri, local } = this.#qname(doc, node, value);
    const found = this.tables[kind].get(clark(uri, local));
    if (found === undefined) this.#fail(doc, node, `${kind} '${value}' is not declared`);
    return found;
  }

  globalElement(key: string, c: Component): XsdElement {
    const known = this.#elements.get(key);
    if (known) return known;
    const element: XsdElement = {
      name: attr(c.node, "name")!,
      uri: c.doc.tns,
      type: ANY_TYPE,
      nillable: attr(c.node, "nillable") === "true",
      file: c.doc.file,
    };
    this.#elements.set(key, element);
    element.type = this.#elementType(c.doc, c.node);
    return element;
  }

  #elementType(doc: SchemaDoc, node: XmlNode): XsdType {
    const typeName = attr(node, "type");
    if (typeName !== undefined) return this.#namedType(doc, node, typeName);
    const inline = xsChildren(node).find((c) =>
      c.local === "complexType" || c.local === "simpleType"
    );
    if (inline?.local === "complexType") return this.#complexType(doc, inline);
    if (inline?.local === "simpleType") return this.#simpleType(doc, inline);
    return ANY_TYPE;
  }

  #namedType(doc: SchemaDoc, node: XmlNode, value: string): XsdType {
    const { uri, local } = this.#qname(doc, node, value);
    if (uri === XS) {
      if (local === "anyType") return ANY_TYPE;
      return {
        kind: "simple",
        builtin: local === "anySimpleType" ? "string" : local,
        facets: {},
        list: false,
      };
    }
    const key = clark(uri, local);
    const known = this.#types.get(key);
    if (known) return known;
    const complex = this.tables.complexType.get(key);
    if (complex) {
      const shell: XsdComplexType = {
        kind: "complex",
        attributes: [],
        particles: [],
        mixed: false,
        open: false,
      };
      this.#types.set(key, shell);
      this.#fillComplex(complex.doc, complex.node, shell);
      return shell;
    }
    const simple = this.tables.simpleType.get(key);
    if (simple) {
      const type = this.#simpleType(simple.doc, simple.node);
      this.#types.set(key, type);
      return type;
    }
    this.#fail(doc, node, `type '${value}' is not declared`);
  }

  #simple(doc: SchemaDoc, node: XmlNode, value: string): XsdSimpleType {
    const type = this.#namedType(doc, node, value);
    if (type.kind === "simple") return type;
    if (type.text) return type.text;
    this.#fail(doc, node, `'${value}' is a complex type where a simple type is needed`);
  }

  #simpleType(doc: SchemaDoc, node: XmlNode): XsdSimpleType {
    const restriction = xsChildren(node, "restriction")[0];
    if (restriction) return this.#restrict(restriction, this.#restrictionBase(doc, restriction));
    if (xsChildren(node, "list").length > 0) return { ...STRING, list: true };
    return STRING; // a union: its members' lexical spaces are all text
  }

  #restrictionBase(doc: SchemaDoc, restriction: XmlNode): XsdSimpleType {
    const base = attr(restriction, "base");
    if (base !== undefined) return this.#simple(doc, restriction, base);
    const inline = xsChildren(restriction, "simpleType")[0];
    return inline ? this.#simpleType(doc, inline) : STRING;
  }

  #restrict(restriction: XmlNode, base: XsdSimpleType): XsdSimpleType {
    const facets: Record<string, unknown> = { ...base.facets };
    const enumeration: string[] = [];
    const pattern: string[] = [];
    for (const f of xsChildren(restriction)) {
      const value = attr(f, "value");
      if (value === undefined) continue;
      switch (f.local) {
        case "enumeration":
          enumeration.push(value);
          break;
        case "pattern":
          pattern.push(value);
          break;
        case "length":
        case "minLength":
        case "maxLength":
        case "totalDigits":
        case "fractionDigits":
          facets[f.local] = Number(value);
          break;
        case "minInclusive":
        case "maxInclusive":
        case "minExclusive":
        case "maxExclusive":
          facets[f.local] = value;
          break;
      }
    }
    if (enumeration.length > 0) facets.enumeration = enumeration;
    if (pattern.length > 0) facets.pattern = [...(base.facets.pattern ?? []), ...pattern];
    return { kind: "simple", builtin: base.builtin, facets: facets as XsdFacets, list: base.list };
  }

  #complexType(doc: SchemaDoc, node: XmlNode): XsdComplexType {
    const type: XsdComplexType = {
      kind: "complex",
      attributes: [],
      particles: [],
      mixed: false,
      open: false,
    };
    this.#fillComplex(doc, node, type);
    return type;
  }

  #fillComplex(doc: SchemaDoc, node: XmlNode, type: XsdComplexType): void {
    type.mixed = attr(node, "mixed") === "true";
    const simpleContent = xsChildren(node, "simpleContent")[0];
    const complexContent = xsChildren(node, "complexContent")[0];
    if (simpleContent) return this.#fillSimpleContent(doc, simpleContent, type);
    if (complexContent) {
      if (attr(complexContent, "mixed") === "true") type.mixed = true;
      const derivation = xsChildren(complexContent).find((c) =>
        c.local === "extension" || c.local === "restriction"
      );
      if (derivation === undefined) return;
      const baseName = attr(derivation, "base");
      const base = baseName === undefined ? ANY_TYPE : this.#namedType(doc, derivation, baseName);
      if (base.kind === "complex") {
        type.attributes.push(...base.attributes);
        type.open ||= base.open;
        if (derivation.local === "extension") type.particles.push(...base.particles);
      }
      this.#content(doc, derivation, type);
      return;
    }
    this.#content(doc, node, type);
  }

  #fillSimpleContent(doc: SchemaDoc, content: XmlNode, type: XsdComplexType): void {
    const derivation = xsChildren(content).find((c) =>
      c.local === "extension" || c.local === "restriction"
    );
    if (derivation === undefined) return;
    const baseName = attr(derivation, "base");
    const base = baseName === undefined ? STRING : this.#namedType(doc, derivation, baseName);
    let text = base.kind === "simple" ? base : base.text ?? STRING;
    if (base.kind === "complex") type.attributes.push(...base.attributes);
    if (derivation.local === "restriction") text = this.#restrict(derivation, text);
    type.text = text;
    this.#attributes(doc, derivation, type);
  }

  /** Particles and attributes declared directly under `node`. */
  #content(doc: SchemaDoc, node: XmlNode, type: XsdComplexType): void {
    for (const child of xsChildren(node)) {
      if (["sequence", "choice", "all", "group"].includes(child.local)) {
        this.#particles(doc, child, 1, 1, type);
      }
    }
    this.#attributes(doc, node, type);
  }

  #particles(
    doc: SchemaDoc,
    node: XmlNode,
    outerMin: number,
    outerMax: number,
    type: XsdComplexType,
  ): void {
    const min = outerMin * occurs(node, "minOccurs");
    const max = outerMax * occurs(node, "maxOccurs");
    switch (node.local) {
      case "element":
        return this.#addParticle(type, {
          element: this.#localElement(doc, node),
          minOccurs: min,
          maxOccurs: max,
        });
      case "any":
        type.open = true;
        return;
      case "group": {
        const ref = attr(node, "ref");
        if (ref === undefined) return;
        const group = this.#lookup("group", doc, node, ref);
        for (const c of xsChildren(group.node)) this.#particles(group.doc, c, min, max, type);
        return;
      }
      case "sequence":
      case "choice":
      case "all":
        for (const c of xsChildren(node)) {
          this.#particles(doc, c, node.local === "choice" ? 0 : min, max, type);
        }
    }
  }

  /** The same element name twice in one content model reads as one repeated slot. */
  #addParticle(type: XsdComplexType, particle: XsdParticle): void {
    const same = type.particles.findIndex((p) =>
      p.element.name === particle.element.name && p.element.uri === particle.element.uri
    );
    if (same < 0) {
      type.particles.push(particle);
      return;
    }
    const prior = type.particles[same];
    type.particles[same] = {
      element: prior.element,
      minOccurs: prior.minOccurs + particle.minOccurs,
      maxOccurs: prior.maxOccurs + particle.maxOccurs,
    };
  }

  #localElement(doc: SchemaDoc, node: XmlNode): XsdElement {
    const ref = attr(node, "ref");
    if (ref !== undefined) {
      const { uri, local } = this.#qname(doc, node, ref);
      const key = clark(uri, local);
      return this.globalElement(key, this.#lookup("element", doc, node, ref));
    }
    const form = attr(node, "form");
    const qualified = form === undefined ? doc.qualifiedElements : form === "qualified";
    const element: XsdElement = {
      name: attr(node, "name") ?? this.#fail(doc, node, "a local element has neither name nor ref"),
      uri: qualified ? doc.tns : "",
      type: ANY_TYPE,
      nillable: attr(node, "nillable") === "true",
    };
    element.type = this.#elementType(doc, node);
    return element;
  }

  #attributes(doc: SchemaDoc, node: XmlNode, type: XsdComplexType): void {
    for (const child of xsChildren(node)) {
      if (child.local === "anyAttribute") type.open = true;
      if (child.local === "attributeGroup") {
        const ref = attr(child, "ref");
        if (ref === undefined) continue;
        const group = this.#lookup("attributeGroup", doc, child, ref);
        this.#attributes(group.doc, group.node, type);
      }
      if (child.local !== "attribute") continue;
      const use = attr(child, "use");
      const declared = this.#attribute(doc, child, use === "required");
      const at = type.attributes.findIndex((a) =>
        a.name === declared.name && a.uri === declared.uri
      );
      if (at >= 0) type.attributes.splice(at, 1);
      if (use !== "prohibited") type.attributes.push(declared);
    }
  }

  #attribute(doc: SchemaDoc, node: XmlNode, required: boolean): XsdAttribute {
    const ref = attr(node, "ref");
    if (ref !== undefined) {
      const { uri, local } = this.#qname(doc, node, ref);
      const global = this.tables.attribute.get(clark(uri, local));
      // xml:lang and friends come from a schema a folder rarely carries.
      if (global === undefined) return { name: local, uri, type: STRING, required };
      return { ...this.#attribute(global.doc, global.node, required), uri };
    }
    const form = attr(node, "form");
    const qualified = form === undefined ? doc.qualifiedAttributes : form === "qualified";
    const typeName = attr(node, "type");
    const inline = xsChildren(node, "simpleType")[0];
    const type = typeName !== undefined
      ? this.#simple(doc, node, typeName)
      : inline
      ? this.#simpleType(doc, inline)
      : STRING;
    return {
      name: attr(node, "name") ?? this.#fail(doc, node, "an attribute has neither name nor ref"),
      uri: qualified ? doc.tns : "",
      type,
      required,
    };
  }
}
