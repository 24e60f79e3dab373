/**
 * Run-time state of one evaluation: frames holding local variables, the
 * caller's input context read lazily, and the warning list.
 *
 * Compiled code is a tree of closures `(frame) => value`. Local variables
 * (for/some/every variables, function parameters, context entries, filter
 * items) live in numbered slots of a frame; each function call gets a frame
 * whose `up` is the frame the function was defined in. Input variables are
 * not converted up front: a read converts only the value it touches.
 *
 * @module
 */
import { fromJs, getProperty } from "./semantics.ts";
import { type EvalEnv, FeelContext, type FeelFunction, type FeelValue } from "./values.ts";

/** One activation: slots of the current function level and the way out. */
export interface Frame {
  /** Local slots of this level. */
  readonly v: FeelValue[];
  /** The frame the current function was defined in (null at the top level). */
  readonly up: Frame | null;
  /** The evaluation this frame belongs to (input context and read cache). */
  readonly rt: Run;
  /** Where warnings go and which clock applies (the caller's, inside a function). */
  readonly env: EvalEnv;
}

/** Compiled code for one node. */
export type Code = (f: Frame) => FeelValue;

/** Input context as the caller supplied it: a plain JS object or a FEEL context. */
export type InputContext = Readonly<Record<string, unknown>> | FeelContext;

/** The top-level frame and evaluation environment of one evaluation. */
export class Run implements Frame, EvalEnv {
  readonly v: FeelValue[];
  readonly up: null = null;
  readonly rt: Run = this;
  readonly env: EvalEnv = this;
  readonly warnings: string[] = [];
  /** Converted input variables, by the index the compiler gave each name. */
  readonly cache: (FeelValue | undefined)[];
  /** Plain JS input, or null when the input is a FEEL context. */
  readonly js: Readonly<Record<string, unknown>> | null;
  /** FEEL input entries, or null when the input is plain JS. */
  readonly feel: ReadonlyMap<string, FeelValue> | null;
  readonly now?: () => number;
  readonly zone?: string;

  /** Starts an evaluation with `slots` local slots and `globals` cached input names. */
  constructor(
    input: InputContext | undefined,
    slots: number,
    globals: number,
    clock: { now?: () => number; zone?: string },
  ) {
    this.v = slots === 0 ? EMPTY : new Array(slots);
    this.cache = globals === 0 ? EMPTY : new Array(globals);
    if (input instanceof FeelContext) {
      this.js = null;
      this.feel = input.entries;
    } else {
      this.js = input ?? EMPTY_OBJECT;
      this.feel = null;
    }
    if (clock.now !== undefined) this.now = clock.now;
    if (clock.zone !== undefined) this.zone = clock.zone;
  }

  /** Records why a value became null. */
  warn(message: string): void {
    this.warnings.push(message);
  }
}

// Shared by evaluations that need no slots or no cache: nothing may write to
// it, and freezing makes a write fail loudly instead of leaking across runs.
const EMPTY: FeelValue[] = Object.freeze([]) as unknown as FeelValue[];
const EMPTY_OBJECT: Readonly<Record<string, unknown>> = Object.freeze({});

/** A frame for a function body or a loop iteration that closures may capture. */
export function childFrame(up: Frame, slots: number, env: EvalEnv): Frame {
  return { v: new Array(slots), up, rt: up.rt, env };
}

/** Code reading slot `slot` of the frame `hops` levels out. */
export function slotReader(hops: number, slot: number): Code {
  switch (hops) {
    case 0:
      return (f) => f.v[slot] ?? null;
    case 1:
      return (f) => f.up!.v[slot] ?? null;
    default:
      return (f) => frameAt(f, hops).v[slot] ?? null;
  }
}

/** The frame `hops` levels out. */
export function frameAt(f: Frame, hops: number): Frame {
  let g = f;
  for (let i = 0; i < hops; i++) g = g.up!;
  return g;
}

/** Whether the input context defines `name` (it then hides a built-in of that name). */
export function inputHas(rt: Run, name: string): boolean {
  return rt.js !== null ? Object.hasOwn(rt.js, name) : rt.feel!.has(name);
}

/** Whether the input context defines any of `names`. */
export function inputHasAny(rt: Run, names: readonly string[]): boolean {
  for (const n of names) if (inputHas(rt, n)) return true;
  return false;
}

/**
 * Code reading input variable `name` (cached per evaluation under `index`);
 * falls back to the built-in function of that name, else null with a warning.
 */
export function inputReader(name: string, index: number, builtin: FeelFunction | undefined): Code {
  const read = (rt: Run): FeelValue => {
    if (rt.js !== null) {
      if (Object.hasOwn(rt.js, name)) return fromJs(rt.js[name]);
    } else {
      const v = rt.feel!.get(name);
      if (v !== undefined) return v;
    }
    if (builtin !== undefined) return builtin;
    rt.warn(`no variable named '${name}'`);
    return null;
  };
  return (f) => {
    const rt = f.rt;
    const hit = rt.cache[index];
    if (hit !== undefined) return hit;
    return (rt.cache[index] = read(rt));
  };
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/**
 * Code for `name.m1.m2…` over an input variable that walks plain JS objects
 * directly and converts only the value reached, instead of the whole
 * variable. Anything that is not a plain object (a list, a FEEL value, a FEEL
 * input context) continues through the general path semantics, so the result
 * is the same as converting first.
 */
export function inputPathReader(name: string, members: readonly string[], general: Code): Code {
  return (f) => {
    const js = f.rt.js;
    if (js === null || !Object.hasOwn(js, name)) return general(f);
    let x: unknown = js[name];
    for (let i = 0; i < members.length; i++) {
      const m = members[i];
      if (!isPlainObject(x)) {
        let v = fromJs(x);
        for (let j = i; j < members.length; j++) v = member(v, members[j], f.env);
        return v;
      }
      if (!Object.hasOwn(x, m)) {
        f.env.warn(`context has no entry '${m}'`);
        return null;
      }
      x = x[m];
    }
    return fromJs(x);
  };
}

/**
 * `value.name` with the common context case first. A null base stays null
 * without a further warning: whatever made it null has already said why.
 */
export function member(value: FeelValue, name: string, env: EvalEnv): FeelValue {
  if (value instanceof FeelContext) {
    const v = value.entries.get(name);
    if (v !== undefined) return v;
  } else if (value === null) {
    return null;
  }
  return getProperty(value, name, env);
}
