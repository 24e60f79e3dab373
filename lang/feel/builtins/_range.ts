/**
 * Range relation built-ins (`before`, `after`, `meets`, `met by`,
 * `overlaps`, `overlaps before`, `overlaps after`, `finishes`,
 * `finished by`, `includes`, `during`, `starts`, `started by`,
 * `coincides`), each with its point/range overloads. An unbounded side of a
 * range (`< 10`, `>= 5`) counts as minus or plus infinity.
 *
 * @module
 */
import { kindName, valueCompare } from "../semantics.ts";
import type { EvalEnv, FeelParam, FeelRange, FeelValue } from "../values.ts";
import { builtin, describe, fail, param } from "./_define.ts";

/** An endpoint: a value, or an infinity for an unbounded side. */
interface End {
  readonly v: FeelValue;
  /** -1 for minus infinity, 1 for plus infinity, 0 for a finite value. */
  readonly inf: number;
}

/** A range or a point (a point is its own start and end, both included). */
interface Span {
  readonly s: End;
  readonly si: boolean;
  readonly e: End;
  readonly ei: boolean;
}

/** Comparisons that remember whether any operand pair was not comparable. */
class Compare {
  failed = false;
  constructor(private readonly env: EvalEnv) {}

  private cmp(a: End, b: End): number {
    if (a.inf !== 0 || b.inf !== 0) return Math.sign(a.inf - b.inf);
    const c = valueCompare(a.v, b.v, this.env);
    if (c === null) {
      this.failed = true;
      return 0;
    }
    return c;
  }
  lt(a: End, b: End): boolean {
    return this.cmp(a, b) < 0;
  }
  gt(a: End, b: End): boolean {
    return this.cmp(a, b) > 0;
  }
  eq(a: End, b: End): boolean {
    return this.cmp(a, b) === 0;
  }
}

type Shape = "point" | "range";
type Relation = (k: Compare, a: Span, b: Span) => boolean;

function toSpan(v: FeelValue, env: EvalEnv, fn: string): { shape: Shape; span: Span } | null {
  if (v === null) return fail(env, fn, "argument is null");
  if (kindName(v) !== "range") {
    const end = { v, inf: 0 };
    return { shape: "point", span: { s: end, si: true, e: end, ei: true } };
  }
  const r = v as FeelRange;
  if (r.op === "!=") return fail(env, fn, "a '!=' test is not an interval");
  const open = r.op !== undefined;
  return {
    shape: "range",
    span: {
      // Only the side a unary comparison leaves open is unbounded; a null
      // endpoint of an interval literal is a value that compares as null.
      s: r.start === null && open ? { v: null, inf: -1 } : { v: r.start, inf: 0 },
      si: r.startIncluded,
      e: r.end === null && open ? { v: null, inf: 1 } : { v: r.end, inf: 0 },
      ei: r.endIncluded,
    },
  };
}

interface Variant {
  readonly shapes: readonly [Shape, Shape];
  readonly names: readonly [string, string];
  readonly holds: Relation;
}

/**
 * Declares a relation. Signatures are listed in variant order; a positional
 * call picks the variant by the argument shapes, a named call must supply
 * arguments of the shapes its parameter names imply.
 */
function relation(name: string, variants: readonly Variant[]) {
  const signatures: FeelParam[][] = variants.map((v) => v.names.map((n) => param(n)));
  return builtin(name, signatures, (args, env, sig) => {
    const a = toSpan(args[0] ?? null, env, name);
    const b = toSpan(args[1] ?? null, env, name);
    if (a === null || b === null) return null;
    const variant = variants.find((v) => v.shapes[0] === a.shape && v.shapes[1] === b.shape);
    const named = variants[sig];
    const positional = sig === 0;
    if (variant === undefined || (!positional && named !== variant)) {
      return fail(env, name, `no overload for (${a.shape}, ${b.shape})`);
    }
    const k = new Compare(env);
    const r = variant.holds(k, a.span, b.span);
    return k.failed
      ? fail(env, name, `${describe(args[0])} and ${describe(args[1])} are not comparable`)
      : r;
  });
}

const PP = ["point", "point"] as const;
const PR = ["point", "range"] as const;
const RP = ["range", "point"] as const;
const RR = ["range", "range"] as const;
const POINTS = ["point1", "point2"] as const;
const POINT_RANGE = ["point", "range"] as const;
const RANGE_POINT = ["range", "point"] as const;
const RANGES = ["range1", "range2"] as const;

const before = relation("before", [
  { shapes: PP, names: POINTS, holds: (k, a, b) => k.lt(a.s, b.s) },
  {
    shapes: PR,
    names: POINT_RANGE,
    holds: (k, p, r) => k.lt(p.s, r.s) || (k.eq(p.s, r.s) && !r.si),
  },
  {
    shapes: RP,
    names: RANGE_POINT,
    holds: (k, r, p) => k.lt(r.e, p.s) || (k.eq(r.e, p.s) && !r.ei),
  },
  {
    shapes: RR,
    names: RANGES,
    holds: (k, a, b) => k.lt(a.e, b.s) || ((!a.ei || !b.si) && k.eq(a.e, b.s)),
  },
]);

const after = relation("after", [
  { shapes: PP, names: POINTS, holds: (k, a, b) => k.gt(a.s, b.s) },
  {
    shapes: PR,
    names: POINT_RANGE,
    holds: (k, p, r) => k.gt(p.s, r.e) || (k.eq(p.s, r.e) && !r.ei),
  },
  {
    shapes: RP,
    names: RANGE_POINT,
    holds: (k, r, p) => k.gt(r.s, p.s) || (k.eq(r.s, p.s) && !r.si),
  },
  {
    shapes: RR,
    names: RANGES,
    holds: (k, a, b) => k.gt(a.s, b.e) || ((!a.si || !b.ei) && k.eq(a.s, b.e)),
  },
]);

const meets = relation("meets", [
  { shapes: RR, names: RANGES, holds: (k, a, b) => a.ei && b.si && k.eq(a.e, b.s) },
]);

const metBy = relation("met by", [
  { shapes: RR, names: RANGES, holds: (k, a, b) => a.si && b.ei && k.eq(a.s, b.e) },
]);

const overlaps = relation("overlaps", [
  {
    shapes: RR,
    names: RANGES,
    holds: (k, a, b) =>
      (k.gt(a.e, b.s) || (k.eq(a.e, b.s) && a.ei && b.si)) &&
      (k.lt(a.s, b.e) || (k.eq(a.s, b.e) && a.si && b.ei)),
  },
]);

/** `overlaps before(a, b)`; `overlaps after(a, b)` is the same test with the ranges swapped. */
const overlapsBeforeHolds: Relation = (k, a, b) =>
  (k.lt(a.s, b.s) || (k.eq(a.s, b.s) && a.si && !b.si)) &&
  (k.gt(a.e, b.s) || (k.eq(a.e, b.s) && a.ei && b.si)) &&
  (k.lt(a.e, b.e) || (k.eq(a.e, b.e) && (!a.ei || b.ei)));

const overlapsBefore = relation("overlaps before", [
  { shapes: RR, names: RANGES, holds: overlapsBeforeHolds },
]);

const overlapsAfter = relation("overlaps after", [
  { shapes: RR, names: RANGES, holds: (k, a, b) => overlapsBeforeHolds(k, b, a) },
]);

/** `finishes(a, b)` for two ranges; `finished by` swaps them. */
const finishesRanges: Relation = (k, a, b) =>
  a.ei === b.ei && k.eq(a.e, b.e) && (k.gt(a.s, b.s) || (k.eq(a.s, b.s) && (!a.si || b.si)));

const finishes = relation("finishes", [
  { shapes: PR, names: POINT_RANGE, holds: (k, p, r) => r.ei && k.eq(r.e, p.s) },
  { shapes: RR, names: RANGES, holds: finishesRanges },
]);

const finishedBy = relation("finished by", [
  { shapes: RP, names: RANGE_POINT, holds: (k, r, p) => r.ei && k.eq(r.e, p.s) },
  { shapes: RR, names: RANGES, holds: (k, a, b) => finishesRanges(k, b, a) },
]);

const rangeHasPoint: Relation = (k, r, p) =>
  (k.lt(r.s, p.s) && k.gt(r.e, p.s)) || (k.eq(r.s, p.s) && r.si) || (k.eq(r.e, p.s) && r.ei);

/** `includes(a, b)` for two ranges; `during` swaps them. */
const includesRanges: Relation = (k, a, b) =>
  (k.lt(a.s, b.s) || (k.eq(a.s, b.s) && (a.si || !b.si))) &&
  (k.gt(a.e, b.e) || (k.eq(a.e, b.e) && (a.ei || !b.ei)));

const includes = relation("includes", [
  { shapes: RP, names: RANGE_POINT, holds: rangeHasPoint },
  { shapes: RR, names: RANGES, holds: includesRanges },
]);

const during = relation("during", [
  { shapes: PR, names: POINT_RANGE, holds: (k, p, r) => rangeHasPoint(k, r, p) },
  { shapes: RR, names: RANGES, holds: (k, a, b) => includesRanges(k, b, a) },
]);

/** `starts(a, b)` for two ranges; `started by` swaps them. */
const startsRanges: Relation = (k, a, b) =>
  k.eq(a.s, b.s) && a.si === b.si && (k.lt(a.e, b.e) || (k.eq(a.e, b.e) && (!a.ei || b.ei)));

const starts = relation("starts", [
  { shapes: PR, names: POINT_RANGE, holds: (k, p, r) => k.eq(r.s, p.s) && r.si },
  { shapes: RR, names: RANGES, holds: startsRanges },
]);

const startedBy = relation("started by", [
  { shapes: RP, names: RANGE_POINT, holds: (k, r, p) => k.eq(r.s, p.s) && r.si },
  { shapes: RR, names: RANGES, holds: (k, a, b) => startsRanges(k, b, a) },
]);

const coincides = relation("coincides", [
  { shapes: PP, names: POINTS, holds: (k, a, b) => k.eq(a.s, b.s) },
  {
    shapes: RR,
    names: RANGES,
    holds: (k, a, b) => k.eq(a.s, b.s) && a.si === b.si && k.eq(a.e, b.e) && a.ei === b.ei,
  },
]);

/** The range relation built-ins. */
export const rangeBuiltins = [
  before,
  after,
  meets,
  metBy,
  overlaps,
  overlapsBefore,
  overlapsAfter,
  finishes,
  finishedBy,
  includes,
  during,
  starts,
  startedBy,
  coincides,
];
