/**
 * Variable scoping. Each scope instance holds its own variables; a read sees
 * the nearest scope that defines the name, walking out to the process root.
 * A write lands in the nearest scope that already defines the name, else in
 * the root scope of the process the write happens in (a called process has
 * its own root), so values set inside a sub-process are visible after it.
 * Names a scope defines for itself (multi-instance elements, loop counters)
 * stay local because they are defined there first. The root scope of a
 * called process notes the names written into it: only those go back to a
 * caller that maps no outputs.
 *
 * Values are immutable FEEL values: a path assignment (`a.b.c := v`)
 * rebuilds the contexts along the path instead of changing them.
 *
 * @module
 */
import { FeelContext, type FeelValue, fromJs } from "../../lang/feel/mod.ts";
import type { InstanceState, ScopeInstance } from "./state.ts";

/** The scope instance a write to `name` from `scope` lands in. */
function writeTarget(
  state: InstanceState,
  scope: ScopeInstance,
  name: string,
): ScopeInstance {
  let root = scope;
  for (let s: ScopeInstance | undefined = scope; s; s = outer(state, s)) {
    if (s.vars.has(name)) return s;
    root = s;
  }
  return root;
}

/** Sets `name` (or a dotted path into it) as seen from `scope`. */
export function setVariable(
  state: InstanceState,
  scope: ScopeInstance,
  path: string,
  value: FeelValue,
): void {
  const dot = path.indexOf(".");
  const name = dot < 0 ? path : path.slice(0, dot);
  const target = writeTarget(state, scope, name);
  if (dot < 0) {
    define(target, name, value);
    return;
  }
  const current = lookup(state, scope, name);
  define(target, name, withPath(current ?? null, path.slice(dot + 1).split("."), value));
}

/** Sets `name` in exactly `scope`, noting the write when the scope tracks its writes. */
export function define(scope: ScopeInstance, name: string, value: FeelValue): void {
  scope.vars.set(name, value);
  scope.written?.add(name);
}

/** The value of `name` as seen from `scope`, or undefined when no scope defines it. */
export function lookup(
  state: InstanceState,
  scope: ScopeInstance,
  name: string,
): FeelValue | undefined {
  let s: ScopeInstance | undefined = scope;
  while (s) {
    const v = s.vars.get(name);
    if (v !== undefined || s.vars.has(name)) return v;
    s = outer(state, s);
  }
  return undefined;
}

/** The scope a read continues in: a called process does not see its caller's variables. */
function outer(state: InstanceState, scope: ScopeInstance): ScopeInstance | undefined {
  if (scope.kind === "call" || scope.parent === undefined) return undefined;
  return state.scopes.get(scope.parent);
}

/** `base` with the entry at `path` replaced (contexts created as needed). */
function withPath(base: FeelValue, path: readonly string[], value: FeelValue): FeelValue {
  const entries = base instanceof FeelContext
    ? new Map(base.entries)
    : new Map<string, FeelValue>();
  const [head, ...rest] = path;
  entries.set(head, rest.length === 0 ? value : withPath(entries.get(head) ?? null, rest, value));
  return new FeelContext(entries);
}

/**
 * Every visible variable from `scope` outward (inner names hide outer ones),
 * with `overlay` on top. A root-only view with no (or an empty) overlay
 * shares the scope's map instead of copying it.
 */
export function visible(
  state: InstanceState,
  scope: ScopeInstance,
  overlay?: ReadonlyMap<string, FeelValue>,
): Map<string, FeelValue> {
  const over = overlay !== undefined && overlay.size > 0 ? overlay : undefined;
  if ((scope.parent === undefined || scope.kind === "call") && over === undefined) {
    return scope.vars;
  }
  const chain: ScopeInstance[] = [];
  for (let s: ScopeInstance | undefined = scope; s; s = outer(state, s)) chain.push(s);
  const merged = new Map<string, FeelValue>();
  for (let i = chain.length - 1; i >= 0; i--) for (const [k, v] of chain[i].vars) merged.set(k, v);
  if (over) { for (const [k, v] of over) merged.set(k, v); }
  return merged;
}

/** Converts caller-supplied values (plain JS or FEEL) to FEEL values. */
export function toFeel(value: unknown): FeelValue {
  return fromJs(value);
}
