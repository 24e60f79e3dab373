/**
 * List built-ins: membership, positions, construction and reshaping, and
 * `sort`. Positions are 1-based from the front and -1-based from the back;
 * a position outside the list is null with a warning.
 *
 * @module
 */
import { callFunction, kindName, valueCompare, valueEquals } from "../semantics.ts";
import { type EvalEnv, FeelDecimal, FeelFunction, type FeelValue } from "../values.ts";
import {
  builtin,
  describe,
  fail,
  intArg,
  listArg,
  optional,
  param,
  T,
  variadic,
} from "./_define.ts";

const QUIET: EvalEnv = { warn() {} };

/** FEEL equality used for membership: values of different kinds are simply not equal. */
export function sameValue(a: FeelValue, b: FeelValue): boolean {
  return valueEquals(a, b, QUIET) === true;
}

/**
 * Converts a 1-based (or negative, from the end) position to an index,
 * or null with a warning when it lies outside the list.
 */
function index(
  pos: FeelValue | undefined,
  length: number,
  env: EvalEnv,
  fn: string,
  name = "position",
): number | null {
  const p = intArg(pos, env, fn, name);
  if (p === null) return null;
  if (p === 0 || Math.abs(p) > length) {
    return fail(env, fn, `${name} ${p} is outside the list of ${length} item(s)`);
  }
  return p > 0 ? p - 1 : length + p;
}

const listContains = builtin(
  "list contains",
  [[param("list", T.list), param("element")]],
  (args, env) => {
    const list = listArg(args[0], env, "list contains", "list");
    if (list === null) return null;
    const e = args[1] ?? null;
    return list.some((x) => sameValue(x, e));
  },
);

const count = builtin("count", [[param("list", T.list)]], (args, env) => {
  const list = listArg(args[0], env, "count", "list");
  return list === null ? null : new FeelDecimal(list.length);
});

function extreme(name: string, sign: number) {
  return builtin(name, [[param("list", T.list)], [variadic("c")]], (args, env) => {
    const list = listArg(args[0], env, name, "list");
    if (list === null) return null;
    if (list.length === 0) return fail(env, name, "the list is empty");
    let best = list[0];
    for (let i = 1; i < list.length; i++) {
      const c = valueCompare(list[i], best, env);
      if (c === null) return fail(env, name, "the items are not comparable");
      if (c * sign > 0) best = list[i];
    }
    if (list.length === 1 && valueCompare(best, best, env) === null) {
      return fail(env, name, `${describe(best)} is not comparable`);
    }
    return best;
  });
}

function logical(name: string, decisive: boolean) {
  return builtin(name, [[param("list", T.list)], [variadic("b")]], (args, env) => {
    const list = listArg(args[0], env, name, "list");
    if (list === null) return null;
    let sawOther = false;
    for (const x of list) {
      if (x === decisive) return decisive;
      if (x !== !decisive) sawOther = true;
    }
    return sawOther ? fail(env, name, "an item is not a boolean") : !decisive;
  });
}

const sublist = builtin(
  "sublist",
  [[param("list", T.list), param("start position", T.number), optional("length", T.number)]],
  (args, env) => {
    const list = listArg(args[0], env, "sublist", "list");
    if (list === null) return null;
    const from = index(args[1], list.length, env, "sublist", "start position");
    if (from === null) return null;
    if (args[2] === undefined) return list.slice(from);
    const length = intArg(args[2], env, "sublist", "length");
    if (length === null) return null;
    if (length < 1) return fail(env, "sublist", "length must be at least 1");
    return list.slice(from, from + length);
  },
);

const append = builtin(
  "append",
  [[param("list", T.list), variadic("item", undefined, true)]],
  (args, env) => {
    const list = listArg(args[0], env, "append", "list");
    return list === null ? null : [...list, ...(args[1] as FeelValue[])];
  },
);

const concatenate = builtin("concatenate", [[variadic("list", T.list)]], (args, env) => {
  const out: FeelValue[] = [];
  for (const l of args[0] as FeelValue[]) {
    if (!Array.isArray(l)) return fail(env, "concatenate", `${describe(l)} is not a list`);
    out.push(...l);
  }
  return out;
});

const insertBefore = builtin(
  "insert before",
  [[param("list", T.list), param("position", T.number), param("newItem")]],
  (args, env) => {
    const list = listArg(args[0], env, "insert before", "list");
    if (list === null) return null;
    const i = index(args[1], list.length, env, "insert before");
    if (i === null) return null;
    return [...list.slice(0, i), args[2] ?? null, ...list.slice(i)];
  },
);

const remove = builtin(
  "remove",
  [[param("list", T.list), param("position", T.number)]],
  (args, env) => {
    const list = listArg(args[0], env, "remove", "list");
    if (list === null) return null;
    const i = index(args[1], list.length, env, "remove");
    return i === null ? null : [...list.slice(0, i), ...list.slice(i + 1)];
  },
);

const listReplace = builtin(
  "list replace",
  [
    [param("list", T.list), param("position"), param("newItem")],
    [param("list", T.list), param("match"), param("newItem")],
  ],
  (args, env) => {
    const list = listArg(args[0], env, "list replace", "list");
    if (list === null) return null;
    const [, how, newItem = null] = args;
    if (how instanceof FeelFunction) {
      const out: FeelValue[] = [];
      for (const item of list) {
        const hit = callFunction(how, { positional: [item, newItem] }, env);
        if (typeof hit !== "boolean") {
          return fail(env, "list replace", "match must return a boolean");
        }
        out.push(hit === true ? newItem : item);
      }
      return out;
    }
    if (kindName(how) !== "number") {
      return fail(
        env,
        "list replace",
        `position must be a number or match a function, got ${describe(how)}`,
      );
    }
    const i = index(how, list.length, env, "list replace");
    if (i === null) return null;
    const out = list.slice();
    out[i] = newItem;
    return out;
  },
);

const reverse = builtin("reverse", [[param("list", T.list)]], (args, env) => {
  const list = listArg(args[0], env, "reverse", "list");
  return list === null ? null : list.slice().reverse();
});

const indexOf = builtin("index of", [[param("list", T.list), param("match")]], (args, env) => {
  const list = listArg(args[0], env, "index of", "list");
  if (list === null) return null;
  const m = args[1] ?? null;
  const out: FeelValue[] = [];
  list.forEach((x, i) => {
    if (sameValue(x, m)) out.push(new FeelDecimal(i + 1));
  });
  return out;
});

function distinct(items: Iterable<FeelValue>): FeelValue[] {
  const out: FeelValue[] = [];
  for (const x of items) if (!out.some((y) => sameValue(x, y))) out.push(x);
  return out;
}

const union = builtin("union", [[variadic("list", T.list)]], (args, env) => {
  const lists = args[0] as FeelValue[];
  for (const l of lists) {
    if (!Array.isArray(l)) return fail(env, "union", `${describe(l)} is not a list`);
  }
  return distinct((lists as FeelValue[][]).flat());
});

const distinctValues = builtin("distinct values", [[param("list", T.list)]], (args, env) => {
  const list = listArg(args[0], env, "distinct values", "list");
  return list === null ? null : distinct(list);
});

function flattenInto(list: FeelValue[], out: FeelValue[]): FeelValue[] {
  for (const x of list) {
    if (Array.isArray(x)) flattenInto(x, out);
    else out.push(x);
  }
  return out;
}

const flatten = builtin("flatten", [[param("list", T.list)]], (args, env) => {
  const list = listArg(args[0], env, "flatten", "list");
  return list === null ? null : flattenInto(list, []);
});

/** Sorts with a `precedes(a, b)` predicate, or by natural FEEL order when none is given. */
const sort = builtin(
  "sort",
  [[param("list", T.list), optional("precedes")]],
  (args, env) => {
    const list = listArg(args[0], env, "sort", "list");
    if (list === null) return null;
    const precedes = args[1];
    let failed = false;
    let cmp: (a: FeelValue, b: FeelValue) => number;
    if (precedes === undefined || precedes === null) {
      cmp = (a, b) => {
        const c = valueCompare(a, b, env);
        if (c === null) failed = true;
        return c ?? 0;
      };
    } else if (precedes instanceof FeelFunction) {
      const before = (a: FeelValue, b: FeelValue): boolean => {
        const r = callFunction(precedes, { positional: [a, b] }, env);
        if (typeof r !== "boolean") failed = true;
        return r === true;
      };
      cmp = (a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
    } else return fail(env, "sort", `precedes must be a function, got ${describe(precedes)}`);
    const out = list.slice().sort(cmp);
    return failed ? fail(env, "sort", "items could not be ordered") : out;
  },
);

/** The list built-ins (aggregates are in `_aggregate.ts`). */
export const listBuiltins = [
  listContains,
  count,
  extreme("min", -1),
  extreme("max", 1),
  logical("all", false),
  logical("any", true),
  sublist,
  append,
  concatenate,
  insertBefore,
  remove,
  listReplace,
  reverse,
  indexOf,
  union,
  distinctValues,
  flatten,
  sort,
];
