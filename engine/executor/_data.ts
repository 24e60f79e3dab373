/**
 * Data associations. Input associations build a node's data inputs before
 * it runs: from a data store (`q:store`), a transformation, a source
 * variable, and `<assignment>` pairs. Output associations run when the
 * node completes, with the node's result visible as `result`: they set
 * variables or write to a data store.
 *
 * Association ends map by name, not id (the plan's `sourceNames` and
 * `targetName`: an item's `name`, else its id), so
 * `<dataInput id="DataInput_1" name="amount"/>` is the input `amount`, and a
 * data object reference reads and writes the variable of its data object.
 *
 * Data objects are variables of the scope that declares them: when a
 * sub-process body starts, {@link declareDataObjects} gives each its
 * `q:value` (or null), so a data object of a sub-process is local to it.
 *
 * Sensitivity travels along associations: an input that receives a value
 * read from a store with a `dataClass` is a sensitive input, and so is any
 * input, variable or assignment target whose value an association computes
 * from a sensitive name (a marked variable, a `q:variables` sensitive one,
 * or a sensitive input of the node). Variables are marked in the instance
 * state (see `sensitivity.ts`); the values themselves are never changed.
 *
 * @module
 */
import { FeelContext, type FeelValue, formatFeel } from "../../lang/feel/mod.ts";
import type { PlanDataAssociation, PlanExpression, PlanStore } from "../bpmn/mod.ts";
import type { Execution } from "./behavior.ts";
import type { ScopeInstance, Token } from "./state.ts";
import { define, visible } from "./variables.ts";
import type { StoreAccess, StoreValue } from "./_store.ts";

/**
 * The data inputs of the token's node, by target name. An input that holds
 * a value read from a classified store, or computed from a sensitive name,
 * is entered in `marks` with its class.
 */
export function readInputs(
  x: Execution,
  stores: StoreAccess,
  token: Token,
  marks: Map<string, string>,
): Map<string, FeelValue> | Promise<Map<string, FeelValue>> {
  const associations = x.nodeOf(token).inputs;
  const local = new Map<string, FeelValue>();
  for (let i = 0; i < associations.length; i++) {
    const a = associations[i];
    if (a.store && a.sources.includes(a.store.reference)) {
      const read = readStore(x, stores, token, a.store);
      if (read instanceof Promise) {
        return read.then(async (v) => {
          inputFrom(x, token, a, { local, marks }, v);
          for (const rest of associations.slice(i + 1)) {
            const value = rest.store && rest.sources.includes(rest.store.reference)
              ? await readStore(x, stores, token, rest.store)
              : undefined;
            inputFrom(x, token, rest, { local, marks }, value);
          }
          return local;
        });
      }
      inputFrom(x, token, a, { local, marks }, read);
    } else {
      inputFrom(x, token, a, { local, marks }, undefined);
    }
  }
  return local;
}

function inputFrom(
  x: Execution,
  token: Token,
  a: PlanDataAssociation,
  into: { local: Map<string, FeelValue>; marks: Map<string, string> },
  stored: StoreValue | undefined,
): void {
  const { local, marks } = into;
  let value: FeelValue | undefined = stored?.value;
  let mark = stored?.dataClass;
  if (a.transformation) {
    value = x.value(
      a.transformation,
      token,
      stored === undefined ? local : withEntry(local, a.sourceNames[0], stored.value),
    );
    mark ??= x.classOf(token, roots(a.transformation));
  } else if (value === undefined && a.sources.length === 1) {
    value = x.context(token, local).entries.get(a.sourceNames[0]) ?? null;
    mark = x.classOf(token, a.sourceNames);
  }
  if (a.targetName !== undefined && value !== undefined) {
    local.set(a.targetName, value);
    markInput(marks, a.targetName, mark);
  }
  for (const asg of a.assignments) {
    if (!asg.from || !asg.to) continue;
    setPath(local, asg.to, x.value(asg.from, token, local));
    markInput(marks, asg.to.split(".")[0], mark ?? x.classOf(token, roots(asg.from)));
  }
}

function markInput(marks: Map<string, string>, name: string, mark: string | undefined): void {
  if (mark !== undefined && !marks.has(name)) marks.set(name, mark);
}

/** {@link roots} by expression: plans are immutable and an expression's inputs are read on every step. */
const rootsOf = new WeakMap<PlanExpression, string[]>();

/** The names an expression reads (the first segment of each path). */
function roots(expr: PlanExpression): string[] {
  let names = rootsOf.get(expr);
  if (names === undefined) {
    names = expr.paths.map((p) => p.split(".")[0]);
    rootsOf.set(expr, names);
  }
  return names;
}

/** Applies the node's output associations with `result` (and `extra` names) visible. */
export function writeOutputs(
  x: Execution,
  stores: StoreAccess,
  token: Token,
  result: FeelValue | undefined,
  extra?: ReadonlyMap<string, FeelValue>,
): void {
  let overlay: Map<string, FeelValue> | undefined;
  if (extra !== undefined || result !== undefined) {
    overlay = new Map(extra);
    if (result !== undefined) overlay.set("result", result);
  }
  const node = x.nodeOf(token);
  if (node.dataOutputs) {
    overlay ??= new Map();
    bindDataOutputs(overlay, node.dataOutputs, overlay.get("result") ?? null, extra);
  }
  for (const a of node.outputs) {
    if (a.store && a.target === a.store.reference) {
      writeStore(x, stores, token, a.store, outputValue(x, token, a, overlay));
      continue;
    }
    if (a.transformation && a.targetName !== undefined) {
      x.set(token, a.targetName, x.value(a.transformation, token, overlay));
      x.mark(a.targetName, x.classOf(token, roots(a.transformation)));
    } else if (a.sources.length === 1 && a.targetName !== undefined) {
      x.set(token, a.targetName, x.context(token, overlay).entries.get(a.sourceNames[0]) ?? null);
      x.mark(a.targetName, x.classOf(token, a.sourceNames));
    }
    for (const asg of a.assignments) {
      if (!asg.from || !asg.to) continue;
      x.set(token, asg.to, x.value(asg.from, token, overlay));
      x.mark(asg.to.split(".")[0], x.classOf(token, roots(asg.from)));
    }
  }
}

/**
 * What a node's declared data outputs hold: the value of that name the node
 * handed back (a call activity: the called process's variable), else the
 * entry of that name when what the node produced is a context with one, else
 * the whole of it when the node declares a single output, else null.
 */
function bindDataOutputs(
  overlay: Map<string, FeelValue>,
  names: readonly string[],
  produced: FeelValue,
  handed: ReadonlyMap<string, FeelValue> | undefined,
): void {
  const entries = produced instanceof FeelContext ? produced.entries : undefined;
  for (const name of names) {
    if (handed?.has(name)) continue;
    if (entries?.has(name)) overlay.set(name, entries.get(name)!);
    else overlay.set(name, names.length === 1 ? produced : null);
  }
}

// What an output association writes to a store: its transformation, its
// assignments as a context, or its source variable.
function outputValue(
  x: Execution,
  token: Token,
  a: PlanDataAssociation,
  overlay: ReadonlyMap<string, FeelValue> | undefined,
): FeelValue {
  if (a.transformation) return x.value(a.transformation, token, overlay);
  const assigned = a.assignments.filter((asg) => asg.from && asg.to);
  if (assigned.length > 0) {
    const local = new Map<string, FeelValue>();
    for (const asg of assigned) setPath(local, asg.to!, x.value(asg.from!, token, overlay));
    return new FeelContext(local);
  }
  const source = a.sources.findIndex((s) => s !== a.store?.reference);
  return source < 0 ? null : x.context(token, overlay).entries.get(a.sourceNames[source]) ?? null;
}

/**
 * Declares the data objects of a scope that just started, in document
 * order (a value may use the ones before it). A name the scope already
 * holds (a start or call variable) keeps its value. A process body only
 * declares data objects that have a `q:value`: undeclared names land there
 * anyway, and an unset one reads as null all the same.
 */
export function declareDataObjects(x: Execution, scope: ScopeInstance): void {
  const declared = x.process(scope.process).scopes[scope.planScope].dataObjects;
  const root = scope.kind === "process" || scope.kind === "call";
  for (const d of declared) {
    if (scope.vars.has(d.name) || (root && d.value === undefined)) continue;
    const value = d.value === undefined
      ? null
      : x.evaluateIn(d.value, new FeelContext(visible(x.state, scope)));
    define(scope, d.name, value);
  }
}

function readStore(
  x: Execution,
  stores: StoreAccess,
  token: Token,
  store: PlanStore,
): StoreValue | Promise<StoreValue> {
  const read = {
    store: store.store,
    key: storeKey(x, token, store),
    forUpdate: store.forUpdate,
    optimistic: store.expect === "unchanged",
    ...(store.field === undefined ? {} : { field: store.field }),
  };
  return stores.read(x.scope(token.scope), read);
}

function writeStore(
  x: Execution,
  stores: StoreAccess,
  token: Token,
  store: PlanStore,
  value: FeelValue,
): void {
  const key = storeKey(x, token, store);
  const expectRev = store.expect === "unchanged" ? stores.revision(store.store, key) : undefined;
  x.write(token, {
    store: store.store,
    key,
    value,
    ...(store.field === undefined ? {} : { field: store.field }),
    ...(expectRev === undefined ? {} : { expectRev }),
  });
}

/** A store key: strings as they are, other values in their FEEL rendering. */
function storeKey(x: Execution, token: Token, store: PlanStore): string {
  const key = x.value(store.key, token);
  return typeof key === "string" ? key : formatFeel(key);
}

function withEntry(
  map: ReadonlyMap<string, FeelValue>,
  name: string | undefined,
  value: FeelValue,
): Map<string, FeelValue> {
  const out = new Map(map);
  if (name !== undefined) out.set(name, value);
  return out;
}

/** Sets `a.b.c` in a map of contexts, rebuilding the contexts on the path. */
function setPath(map: Map<string, FeelValue>, path: string, value: FeelValue): void {
  const [head, ...rest] = path.split(".");
  if (rest.length === 0) {
    map.set(head, value);
    return;
  }
  const base = map.get(head);
  const inner = base instanceof FeelContext ? new Map(base.entries) : new Map<string, FeelValue>();
  setPath(inner, rest.join("."), value);
  map.set(head, new FeelContext(inner));
}
