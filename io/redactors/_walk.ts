/**
 * Shared mechanics of the built-in content redactors: a walk over a decoded
 * payload that reports every scalar leaf with its JSON Pointer and the key
 * it sits under, and the check digits the detectors rely on.
 *
 * @module
 */
import type { RedactionSpan } from "../../engine/core/redactor.ts";

/** One scalar leaf of a payload. */
export interface Leaf {
  /** JSON Pointer of the leaf (`""` when the payload itself is a scalar). */
  readonly path: string;
  /** The record key or list index it sits under (`""` at the root). */
  readonly key: string;
  /** The leaf as text: strings as they are, numbers and booleans rendered. */
  readonly text: string;
}

function escapeSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Every string, number and bigint leaf of `payload`, depth first. */
export function* leaves(payload: unknown, path = "", key = ""): Generator<Leaf> {
  if (typeof payload === "string") yield { path, key, text: payload };
  else if (typeof payload === "number" || typeof payload === "bigint") {
    yield { path, key, text: String(payload) };
  } else if (Array.isArray(payload)) {
    for (let i = 0; i < payload.length; i++) yield* leaves(payload[i], `${path}/${i}`, String(i));
  } else if (payload !== null && typeof payload === "object") {
    for (const [k, v] of Object.entries(payload)) {
      yield* leaves(v, `${path}/${escapeSegment(k)}`, k);
    }
  }
}

/** A detector: the reason a leaf is sensitive, or undefined. */
export type Detector = (leaf: Leaf) => string | undefined;

/** The spans of every leaf some detector flags (the first reason wins). */
export function locateLeaves(payload: unknown, detectors: readonly Detector[]): RedactionSpan[] {
  const spans: RedactionSpan[] = [];
  for (const leaf of leaves(payload)) {
    for (const detect of detectors) {
      const reason = detect(leaf);
      if (reason !== undefined) {
        spans.push({ path: leaf.path, reason });
        break;
      }
    }
  }
  return spans;
}

/** A key compared without case, `-`, `_` or spaces (`card_number` ≡ `cardNumber`). */
export function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, "");
}

/** The Luhn (mod 10) check over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
