/**
 * Building payload data from untrusted names, and the checks every decoded
 * tree must pass.
 *
 * @module
 */
import { type Issue, issue } from "../../engine/core/codec.ts";
import { MAX_NESTING_DEPTH } from "../../engine/core/input_limits.ts";
import { pointer } from "./_text.ts";

/**
 * Sets `target[key]` as an own, enumerable property, also when the key is
 * `__proto__` (a legal XML element name and CSV header), which a plain
 * assignment would turn into a prototype change.
 */
export function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** What {@link checkDecoded} refuses, by the code each format reports it with. */
export interface DecodedChecks {
  /** The code for a document nested deeper than {@link MAX_NESTING_DEPTH}. */
  readonly tooDeep: string;
}

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly parent?: Visit;
  readonly key?: string | number;
}

/**
 * Walks a decoded value (iteratively: any depth is safe here) and returns
 * the first problem a payload may not carry: nesting deeper than
 * {@link MAX_NESTING_DEPTH} (a YAML alias that contains itself nests
 * without end), a string or member name holding a lone surrogate
 * (`"\uD800"`), or a number that is not finite, named by its JSON pointer.
 * A lone surrogate has no UTF-8 form: stored, every one becomes U+FFFD, so
 * two different keys would merge.
 */
export function checkDecoded(value: unknown, checks: DecodedChecks): Issue | undefined {
  const stack: Visit[] = [{ value, depth: 0 }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const v = visit.value;
    if (typeof v === "string") {
      if (!v.isWellFormed()) return loneSurrogate(visit, "a string");
      continue;
    }
    if (typeof v === "number" && !Number.isFinite(v)) return outOfRange(visit);
    if (v === null || typeof v !== "object") continue;
    if (visit.depth >= MAX_NESTING_DEPTH) {
      // No path: it would be hundreds of segments long.
      return issue(checks.tooDeep, `values nest deeper than ${MAX_NESTING_DEPTH} levels`);
    }
    const depth = visit.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], depth, parent: visit, key: i });
      }
      continue;
    }
    for (const [key, member] of Object.entries(v)) {
      const at: Visit = { value: member, depth, parent: visit, key };
      if (!key.isWellFormed()) return loneSurrogate(at, "the member name");
      stack.push(at);
    }
  }
  return undefined;
}

// JSON.parse reads 1e400 as Infinity, which no FEEL number, schema check or database column holds:
// left alone it would reach the process as null.
function outOfRange(at: Visit): Issue {
  const path = pointerOf(at);
  return issue(
    "SUTRA.PARSE.NUMBER.OUT_OF_RANGE",
    `the number at '${path}' is too large to be a number (or is not one: infinity, NaN)`,
    { path },
  );
}

function loneSurrogate(at: Visit, what: string): Issue {
  const path = pointerOf(at);
  return issue(
    "SUTRA.PARSE.TEXT.LONE_SURROGATE",
    `${what} at '${path}' holds a lone surrogate (an unpaired \\uD800–\\uDFFF escape), ` +
      "which is not text",
    { path },
  );
}

/** The JSON pointer of a visit; a member name that is not text is shown with U+FFFD. */
function pointerOf(visit: Visit): string {
  const segments: (string | number)[] = [];
  for (let v: Visit | undefined = visit; v?.parent !== undefined; v = v.parent) {
    segments.push(typeof v.key === "string" ? v.key.toWellFormed() : v.key!);
  }
  return pointer(segments.reverse());
}
