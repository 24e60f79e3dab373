/**
 * Data associations. Input associations build a node's data inputs before
 * it runs: from a data store (`q:store`), a transformation, a source
 * variable, and `<assignment>` pairs. Output associations run when the
 * node completes, with the node's result visible as `result`: they set
 * variables or write to a data store.
 *
 * Items are named by their id (the plan records association ends by id), so
 * a data input `fromAccount` delivers the variable `fromAccount`.
 *
 * @module
 */
import { FeelContext, type FeelValue, formatFeel } from "../../lang/feel/mod.ts";
import type { PlanDataAssociation, PlanStore } from "../bpmn/mod.ts";
import type { Execution } from "./behavior.ts";
import type { Token } from "./state.ts";
import type { StoreAccess } from "./_store.ts";

/** The data inputs of the token's node, by target name. */
export function readInputs(
  x: Execution,
  stores: StoreAccess,
  token: Token,
): Map<string, FeelValue> | Promise<Map<string, FeelValue>> {
  const associations = x.nodeOf(token).inputs;
  const local = new Map<string, FeelValue>();
  for (let i = 0; i < associations.length; i++) {
    const a = associations[i];
    if (a.store && a.sources.includes(a.store.reference)) {
      const read = readStore(x, stores, token, a.store);
      if (read instanceof Promise) {
        return read.then(async (v) => {
          inputFrom(x, token, a, local, v);
          for (const rest of associations.slice(i + 1)) {
            const value = rest.store && rest.sources.includes(rest.store.reference)
              ? await readStore(x, stores, token, rest.store)
              : undefined;
            inputFrom(x, token, rest, local, value);
          }
          return local;
        });
      }
      inputFrom(x, token, a, local, read);
    } else {
      inputFrom(x, token, a, local, undefined);
    }
  }
  return local;
}

function inputFrom(
  x: Execution,
  token: Token,
  a: PlanDataAssociation,
  local: Map<string, FeelValue>,
  stored: FeelValue | undefined,
): void {
  let value: FeelValue | undefined = stored;
  if (a.transformation) {
    value = x.value(
      a.transformation,
      token,
      stored === undefined ? local : withEntry(local, a.sources[0], stored),
    );
  } else if (value === undefined && a.sources.length === 1) {
    value = x.context(token, local).entries.get(a.sources[0]) ?? null;
  }
  if (a.target !== undefined && value !== undefined) local.set(a.target, value);
  for (const asg of a.assignments) {
    if (!asg.from || !asg.to) continue;
    setPath(local, asg.to, x.value(asg.from, token, local));
  }
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
  for (const a of x.nodeOf(token).outputs) {
    if (a.store && a.target === a.store.reference) {
      writeStore(x, stores, token, a.store, outputValue(x, token, a, overlay));
      continue;
    }
    if (a.transformation && a.target !== undefined) {
      x.set(token, a.target, x.value(a.transformation, token, overlay));
    } else if (a.sources.length === 1 && a.target !== undefined) {
      x.set(token, a.target, x.context(token, overlay).entries.get(a.sources[0]) ?? null);
    }
    for (const asg of a.assignments) {
      if (asg.from && asg.to) x.set(token, asg.to, x.value(asg.from, token, overlay));
    }
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
  const source = a.sources.find((s) => s !== a.store?.reference);
  return source === undefined ? null : x.context(token, overlay).entries.get(source) ?? null;
}

function readStore(
  x: Execution,
  stores: StoreAccess,
  token: Token,
  store: PlanStore,
): FeelValue | Promise<FeelValue> {
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
