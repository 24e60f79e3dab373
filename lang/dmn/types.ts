/**
 * DMN types: item definitions (simple, constrained, structured, collection,
 * function) turned into FEEL types, type references resolved against a
 * model and its imports, and the DMN type conversions applied where a value
 * meets a declared type (decision results, inputs, parameters, context
 * entries).
 *
 * @module
 */
import {
  compile,
  type CompiledExpression,
  type EvalEnv,
  FeelContext,
  type FeelNamedType,
  type FeelType,
  type FeelValue,
  formatFeel,
  isInstanceOf,
  kindName,
  parse,
  structureOf,
  typeName,
  type TypeNode,
} from "../feel/mod.ts";
import type { Definitions, ItemDefinition } from "./model.ts";

const ANY: FeelType = { kind: "Any" };

/** FEEL type names a typeRef may use, including the DMN 1.1 spellings. */
const BUILTIN_TYPES: ReadonlyMap<string, FeelType> = new Map<string, FeelType>([
  ["Any", ANY],
  ["Null", { kind: "Null" }],
  ["number", { kind: "number" }],
  ["string", { kind: "string" }],
  ["boolean", { kind: "boolean" }],
  ["date", { kind: "date" }],
  ["time", { kind: "time" }],
  ["date and time", { kind: "date and time" }],
  ["dateTime", { kind: "date and time" }],
  ["days and time duration", { kind: "days and time duration" }],
  ["dayTimeDuration", { kind: "days and time duration" }],
  ["years and months duration", { kind: "years and months duration" }],
  ["yearMonthDuration", { kind: "years and months duration" }],
  ["list", { kind: "list", item: ANY }],
  ["range", { kind: "range", item: ANY }],
  ["context", { kind: "context", entries: new Map() }],
  ["function", { kind: "function", params: [], result: ANY }],
]);

/** A problem found while resolving a type, reported by the caller with a position. */
export interface TypeProblem {
  /** An unknown type name, or allowed values that are not FEEL unary tests. */
  readonly kind: "unknown type" | "syntax";
  /** The item definition concerned. */
  readonly item: ItemDefinition;
  /** What is wrong. */
  readonly message: string;
}

/** How {@link ModelTypes} reaches the types of the models a model imports. */
export type ImportedTypes = (namespace: string) => ModelTypes | undefined;

/**
 * The types of one model: its item definitions as FEEL types, and typeRef
 * resolution (own item definitions, then built-in names, then
 * `importName.typeName` for imported models).
 */
export class ModelTypes {
  readonly #defs = new Map<string, ItemDefinition>();
  readonly #resolved = new Map<string, FeelNamedType>();
  /** Problems found so far (unknown names, unparsable allowed values). */
  readonly problems: TypeProblem[] = [];

  /** Indexes the item definitions of `model`; types are built on first use. */
  constructor(readonly model: Definitions, readonly imported: ImportedTypes) {
    for (const d of model.itemDefinitions) this.#defs.set(d.name, d);
  }

  /** Every name an expression of this model may use after `instance of`, with its type. */
  feelTypes(): Map<string, FeelType> {
    const out = new Map<string, FeelType>();
    for (const name of this.#defs.keys()) out.set(name, this.named(name)!);
    for (const imp of this.model.imports) {
      const other = this.imported(imp.namespace);
      if (other === undefined || other === this) continue;
      for (const name of other.#defs.keys()) out.set(`${imp.name}.${name}`, other.named(name)!);
    }
    return out;
  }

  /** Names of item definitions and their components (multi-word names FEEL must know). */
  componentNames(): Set<string> {
    const out = new Set<string>();
    const walk = (d: ItemDefinition) => {
      out.add(d.name);
      d.components.forEach(walk);
    };
    this.model.itemDefinitions.forEach(walk);
    return out;
  }

  /** The named type of item definition `name` of this model. */
  named(name: string): FeelNamedType | undefined {
    const done = this.#resolved.get(name);
    if (done !== undefined) return done;
    const def = this.#defs.get(name);
    if (def === undefined) return undefined;
    // Registered before its structure is built so recursive definitions find it.
    const t: { kind: "named"; name: string; base: FeelType } = { kind: "named", name, base: ANY };
    this.#resolved.set(name, t);
    const built = this.#build(def);
    t.base = built.base;
    if (built.allows !== undefined) CONSTRAINTS.set(t, built.allows);
    return t;
  }

  /**
   * Resolves a typeRef; undefined when it names nothing (the caller reports
   * it and treats the value as untyped).
   */
  resolve(typeRef: string | undefined): FeelType | undefined {
    if (typeRef === undefined) return ANY;
    const text = typeRef.trim();
    const direct = this.#byName(text);
    if (direct !== undefined) return direct;
    if (!/[<>]/.test(text)) return undefined;
    const parsed = parse(`null instance of ${text}`, { names: this.#defs.keys() });
    if (parsed.diagnostics !== undefined || parsed.ast.kind !== "InstanceOf") return undefined;
    return this.#fromNode(parsed.ast.type);
  }

  #byName(name: string): FeelType | undefined {
    const own = this.named(name);
    if (own !== undefined) return own;
    const builtin = BUILTIN_TYPES.get(name);
    if (builtin !== undefined) return builtin;
    for (const imp of this.model.imports) {
      if (!name.startsWith(imp.name + ".")) continue;
      const t = this.imported(imp.namespace)?.named(name.slice(imp.name.length + 1));
      if (t !== undefined) return t;
    }
    return undefined;
  }

  #fromNode(node: TypeNode): FeelType | undefined {
    switch (node.kind) {
      case "NamedType":
        return this.#byName(node.name);
      case "ListType":
      case "RangeType": {
        const item = this.#fromNode(node.item);
        if (item === undefined) return undefined;
        return { kind: node.kind === "ListType" ? "list" : "range", item };
      }
      case "ContextType": {
        const entries = new Map<string, FeelType>();
        for (const e of node.entries) {
          const t = this.#fromNode(e.type);
          if (t === undefined) return undefined;
          entries.set(e.name, t);
        }
        return { kind: "context", entries };
      }
      case "FunctionType": {
        const params: FeelType[] = [];
        for (const p of node.params) {
          const t = this.#fromNode(p);
          if (t === undefined) return undefined;
          params.push(t);
        }
        const result = this.#fromNode(node.result);
        return result === undefined ? undefined : { kind: "function", params, result };
      }
    }
  }

  /** The structure of a definition and the predicate of its allowed values. */
  #build(def: ItemDefinition): { base: FeelType; allows?: (v: FeelValue) => boolean } {
    let element: FeelType;
    if (def.components.length > 0) {
      const entries = new Map<string, FeelType>();
      for (const c of def.components) entries.set(c.name, this.#component(c));
      element = { kind: "context", entries };
    } else if (def.functionItem !== undefined) {
      const fi = def.functionItem;
      element = {
        kind: "function",
        params: fi.parameters.map((p) => this.#ref(p.typeRef, def)),
        result: this.#ref(fi.outputTypeRef, def),
      };
    } else {
      element = this.#ref(def.typeRef, def);
    }
    const tests = [def.allowedValues, def.typeConstraint].filter((t) => t !== undefined);
    const allows = tests.length === 0 ? undefined : this.#allows(tests, def);
    if (!def.isCollection) {
      return allows === undefined ? { base: element } : { base: element, allows };
    }
    // Allowed values of a collection constrain its items.
    return { base: { kind: "list", item: constrained(`${def.name} item`, element, allows) } };
  }

  /** A component's type: its structure, named only when allowed values constrain it. */
  #component(c: ItemDefinition): FeelType {
    const built = this.#build(c);
    return constrained(c.name, built.base, built.allows);
  }

  #ref(typeRef: string | undefined, def: ItemDefinition): FeelType {
    if (typeRef === undefined) return ANY;
    const t = this.resolve(typeRef);
    if (t !== undefined) return t;
    this.problems.push({
      kind: "unknown type",
      item: def,
      message: `type '${typeRef}' is not defined`,
    });
    return ANY;
  }

  #allows(tests: string[], def: ItemDefinition): (v: FeelValue) => boolean {
    const enumeration = tests.length === 1 ? stringEnumeration(tests[0]) : undefined;
    if (enumeration !== undefined) return (v) => typeof v === "string" && enumeration.has(v);
    const compiled: CompiledExpression[] = [];
    for (const text of tests) {
      const c = compile(text, { mode: "unaryTests" });
      if (c.diagnostics !== undefined) {
        this.problems.push({
          kind: "syntax",
          item: def,
          message: `allowed values of '${def.name}' are not FEEL unary tests: ${
            c.diagnostics[0].message
          }`,
        });
      } else compiled.push(c.compiled);
    }
    return (v) =>
      compiled.every((c) => {
        const r = c.evaluate(undefined, { input: v });
        return r.value === true;
      });
  }
}

/**
 * The strings of allowed values written as a plain list of string literals
 * (`"LOW", "HIGH"`, the usual enumeration), so membership needs no FEEL
 * evaluation; undefined for any other shape.
 */
function stringEnumeration(text: string): Set<string> | undefined {
  const parsed = parse(text, { mode: "unaryTests" });
  if (parsed.diagnostics !== undefined || parsed.ast.kind !== "UnaryTests") return undefined;
  const { tests, negated, any } = parsed.ast;
  if (negated || any || tests.length === 0) return undefined;
  const values = new Set<string>();
  for (const t of tests) {
    if (t.kind !== "String") return undefined;
    values.add(t.value);
  }
  return values;
}

/**
 * Allowed values of named types. They take part in assignments (a value not
 * allowed becomes null) but not in FEEL's `instance of`, which tests the
 * structure only; so they live here rather than in the FEEL type.
 */
const CONSTRAINTS = new WeakMap<FeelType, (v: FeelValue) => boolean>();

function constrained(
  name: string,
  base: FeelType,
  allows: ((v: FeelValue) => boolean) | undefined,
): FeelType {
  if (allows === undefined) return base;
  const t: FeelNamedType = { kind: "named", name, base };
  CONSTRAINTS.set(t, allows);
  return t;
}

/** Whether `value` (already an instance of `type`) satisfies every allowed-values constraint in it. */
export function isAllowed(value: FeelValue, type: FeelType): boolean {
  if (value === null) return true;
  switch (type.kind) {
    case "named": {
      const allows = CONSTRAINTS.get(type);
      return (allows === undefined || allows(value)) && isAllowed(value, type.base);
    }
    case "list":
      return !Array.isArray(value) || value.every((v) => isAllowed(v, type.item));
    case "context": {
      if (!(value instanceof FeelContext)) return true;
      for (const [k, t] of type.entries) {
        const v = value.entries.get(k);
        if (v !== undefined && !isAllowed(v, t)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

/**
 * Applies the DMN type conversions to a value meeting a declared type: a
 * conforming value passes; a singleton list whose item conforms is unwrapped;
 * a conforming value where a list is declared is wrapped; anything else
 * becomes null with a warning naming `what`.
 */
export function coerceToType(
  value: FeelValue,
  type: FeelType | undefined,
  env: EvalEnv,
  what: string,
): FeelValue {
  if (value === null || type === undefined || type.kind === "Any") return value;
  const fits = (v: FeelValue) => isInstanceOf(v, type);
  let v: FeelValue | undefined;
  if (fits(value)) v = value;
  else {
    const isList = structureOf(type).kind === "list";
    if (!isList && Array.isArray(value) && value.length === 1 && fits(value[0])) v = value[0];
    else if (isList && !Array.isArray(value) && fits([value])) v = [value];
  }
  if (v === undefined) {
    env.warn(
      `${what}: ${kindName(value)} value does not conform to type ${typeName(type)}; null used`,
    );
    return null;
  }
  if (!isAllowed(v, type)) {
    env.warn(
      `${what}: ${formatFeel(v)} is not among the allowed values of ${typeName(type)}; null used`,
    );
    return null;
  }
  return v;
}
