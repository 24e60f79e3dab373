/**
 * Context built-ins: `get value`, `get entries`, `context`, `context put`
 * and `context merge`. Contexts are never modified in place; every function
 * builds a new one, keeping the original entry order.
 *
 * @module
 */
import { type EvalEnv, FeelContext, type FeelValue } from "../values.ts";
import { builtin, describe, fail, param, T } from "./_define.ts";

/** The path of keys a `key`/`keys` argument names, or null when it is not strings. */
function keyPath(v: FeelValue | undefined): string[] | null {
  if (typeof v === "string") return [v];
  if (!Array.isArray(v) || v.length === 0) return null;
  return v.every((k) => typeof k === "string") ? (v as string[]) : null;
}

const getValue = builtin("get value", [[param("m"), param("key")]], (args, env) => {
  let m = args[0];
  const path = keyPath(args[1]);
  if (!(m instanceof FeelContext)) {
    return fail(env, "get value", `m must be a context, got ${describe(m)}`);
  }
  if (path === null) {
    return fail(env, "get value", "key must be a string or a non-empty list of strings");
  }
  for (const k of path) {
    if (!(m instanceof FeelContext)) return null;
    m = m.entries.get(k) ?? null;
  }
  return m ?? null;
});

const getEntries = builtin("get entries", [[param("m")]], (args, env) => {
  const m = args[0];
  if (!(m instanceof FeelContext)) {
    return fail(env, "get entries", `m must be a context, got ${describe(m)}`);
  }
  return Array.from(
    m.entries,
    ([key, value]) => new FeelContext(new Map<string, FeelValue>([["key", key], ["value", value]])),
  );
});

const context = builtin("context", [[param("entries", T.list)]], (args, env) => {
  const entries = args[0];
  if (!Array.isArray(entries)) {
    return fail(env, "context", `entries must be a list, got ${describe(entries)}`);
  }
  const out = new Map<string, FeelValue>();
  for (const e of entries) {
    if (!(e instanceof FeelContext) || !e.entries.has("value")) {
      return fail(env, "context", "each entry must be a context with 'key' and 'value'");
    }
    const key = e.entries.get("key");
    if (typeof key !== "string") return fail(env, "context", "each entry's key must be a string");
    if (out.has(key)) return fail(env, "context", `duplicate key '${key}'`);
    out.set(key, e.entries.get("value")!);
  }
  return new FeelContext(out);
});

/** `context put` along a key path: rebuilds each context on the way down. */
function putPath(ctx: FeelValue, path: string[], value: FeelValue, env: EvalEnv): FeelValue {
  if (!(ctx instanceof FeelContext)) {
    return fail(env, "context put", `cannot put into ${describe(ctx)}`);
  }
  const [head, ...rest] = path;
  let v = value;
  if (rest.length > 0) {
    v = putPath(ctx.entries.get(head) ?? null, rest, value, env);
    if (v === null) return null;
  }
  const entries = new Map(ctx.entries);
  entries.set(head, v);
  return new FeelContext(entries);
}

const contextPut = builtin(
  "context put",
  [
    [param("context"), param("key", T.string), param("value")],
    [param("context"), param("keys", { kind: "list", item: T.string }), param("value")],
  ],
  (args, env) => {
    const path = keyPath(args[1]);
    if (path === null) {
      return fail(env, "context put", "key must be a string, or keys a non-empty list of strings");
    }
    return putPath(args[0] ?? null, path, args[2] ?? null, env);
  },
);

const contextMerge = builtin("context merge", [[param("contexts", T.list)]], (args, env) => {
  const list = args[0];
  if (!Array.isArray(list)) {
    return fail(env, "context merge", `contexts must be a list, got ${describe(list)}`);
  }
  const out = new Map<string, FeelValue>();
  for (const c of list) {
    if (!(c instanceof FeelContext)) {
      return fail(env, "context merge", `${describe(c)} is not a context`);
    }
    for (const [k, v] of c.entries) out.set(k, v);
  }
  return new FeelContext(out);
});

/** The context built-ins. */
export const contextBuiltins = [getValue, getEntries, context, contextPut, contextMerge];
