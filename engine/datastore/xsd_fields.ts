/**
 * The declared fields of a record type in a package's own XSD codec folder,
 * as a projected store needs them: each child element with the XSD
 * built-in it derives from, its length and digit facets, and whether it
 * may be absent. Only what a flat record can hold is modelled — a child of
 * complex content is reported as nested, a repeatable one as repeated — so
 * the projection rules can name it; the codec itself stays the judge of
 * message validity.
 *
 * @module
 */
import { SaxesParser, type SaxesTagNS } from "saxes";
import type { StructureField } from "./columns.ts";

const XS = "http://www.w3.org/2001/XMLSchema";

/** The facets a column type is checked against. */
export interface FieldFacets {
  readonly maxLength?: number;
  readonly length?: number;
  readonly totalDigits?: number;
  readonly fractionDigits?: number;
}

/** One child of a declared record type. */
export interface DeclaredField extends StructureField {
  /** The XSD built-in at the root of its type (`string`, `decimal`, `date`, …); scalars only. */
  readonly builtin?: string;
  readonly facets: FieldFacets;
  /** `minOccurs="0"` (or `nillable`): the column must admit NULL. */
  readonly optional: boolean;
}

interface Node {
  readonly uri: string;
  readonly local: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly ns: Readonly<Record<string, string>>;
  readonly children: Node[];
}

/** The parsed schema documents of one codec folder. */
export class XsdFolder {
  readonly #docs: readonly Node[];

  /** @param texts the text of every `.xsd` file of the folder */
  constructor(texts: readonly string[]) {
    this.#docs = texts.flatMap((t) => {
      const root = parse(t);
      return root && root.uri === XS && root.local === "schema" ? [root] : [];
    });
  }

  /**
   * The fields of `type`: a global element of that name (its inline or
   * named complex type), else a global complex type of that name.
   * Undefined when neither is declared or it is not a record.
   */
  fieldsOf(type: string): DeclaredField[] | undefined {
    const element = this.#global("element", type);
    let complex: Node | undefined;
    if (element) {
      complex = child(element, "complexType") ?? this.#namedType(element, "complexType");
    } else {
      complex = this.#global("complexType", type);
    }
    if (!complex) return undefined;
    return particlesOf(complex).map((p) => this.#field(p));
  }

  #field(el: Node): DeclaredField {
    const name = el.attrs.name ?? el.attrs.ref?.replace(/^.*:/, "") ?? "";
    const max = el.attrs.maxOccurs;
    const optional = el.attrs.minOccurs === "0" || el.attrs.nillable === "true";
    if (max !== undefined && max !== "0" && max !== "1") {
      return { name, kind: "repeated", facets: {}, optional };
    }
    const target = el.attrs.ref ? this.#global("element", el.attrs.ref.replace(/^.*:/, "")) : el;
    const simple = target && this.#simpleOf(target);
    if (!simple) return { name, kind: "nested", facets: {}, optional };
    return { name, kind: "scalar", builtin: simple.builtin, facets: simple.facets, optional };
  }

  // The built-in and facets of an element's simple type, or undefined for complex content.
  #simpleOf(el: Node): { builtin: string; facets: FieldFacets } | undefined {
    if (child(el, "complexType")) return undefined;
    const inline = child(el, "simpleType");
    if (inline) return this.#restriction(inline, 0);
    const type = el.attrs.type;
    if (type === undefined) return undefined;
    return this.#resolveType(el, type, 0);
  }

  #resolveType(
    at: Node,
    qname: string,
    depth: number,
  ): { builtin: string; facets: FieldFacets } | undefined {
    const [prefix, local] = qname.includes(":") ? qname.split(":", 2) : ["", qname];
    if (at.ns[prefix] === XS) return { builtin: local, facets: {} };
    if (depth > 16) return undefined;
    const named = this.#global("simpleType", local);
    return named ? this.#restriction(named, depth + 1) : undefined;
  }

  #restriction(simple: Node, depth: number): { builtin: string; facets: FieldFacets } | undefined {
    const r = child(simple, "restriction");
    if (!r) return { builtin: "string", facets: {} }; // a list or union: kept as text
    const base = r.attrs.base === undefined
      ? (child(r, "simpleType") && this.#restriction(child(r, "simpleType")!, depth + 1))
      : this.#resolveType(r, r.attrs.base, depth);
    if (!base) return undefined;
    const facets: Record<string, number> = { ...base.facets };
    for (const f of r.children) {
      if (f.uri !== XS) continue;
      if (["maxLength", "length", "totalDigits", "fractionDigits"].includes(f.local)) {
        facets[f.local] = Number(f.attrs.value);
      }
    }
    return { builtin: base.builtin, facets };
  }

  #namedType(el: Node, kind: string): Node | undefined {
    const type = el.attrs.type;
    return type === undefined ? undefined : this.#global(kind, type.replace(/^.*:/, ""));
  }

  #global(kind: string, name: string): Node | undefined {
    for (const doc of this.#docs) {
      const found = doc.children.find((c) =>
        c.uri === XS && c.local === kind && c.attrs.name === name
      );
      if (found) return found;
    }
    return undefined;
  }
}

// The element particles of a complex type, through sequence/all/choice and content extensions.
function particlesOf(node: Node): Node[] {
  const out: Node[] = [];
  for (const c of node.children) {
    if (c.uri !== XS) continue;
    if (c.local === "element") out.push(c);
    else if (["sequence", "all", "choice", "complexContent", "extension"].includes(c.local)) {
      out.push(...particlesOf(c));
    }
  }
  return out;
}

function child(node: Node, local: string): Node | undefined {
  return node.children.find((c) => c.uri === XS && c.local === local);
}

function parse(text: string): Node | undefined {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Node[] = [];
  let root: Node | undefined;
  let failed = false;
  parser.on("error", () => failed = true);
  parser.on("opentag", (tag: SaxesTagNS) => {
    const node: Node = {
      uri: tag.uri,
      local: tag.local,
      attrs: Object.fromEntries(Object.values(tag.attributes).map((a) => [a.local, a.value])),
      // saxes gives the bindings declared on this tag only; inherit the rest.
      ns: { ...stack.at(-1)?.ns, ...tag.ns },
      children: [],
    };
    if (stack.length > 0) stack[stack.length - 1].children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on("closetag", () => void stack.pop());
  try {
    parser.write(text).close();
  } catch {
    return undefined;
  }
  return failed ? undefined : root;
}
