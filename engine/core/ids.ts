/**
 * Identifier generation. Ids are UUIDv7: time-ordered, so rows inserted
 * together sit together in a B-tree index, yet unguessable.
 *
 * @module
 */
import { type Clock, systemClock } from "./clock.ts";

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Options for {@link newId}. */
export interface NewIdOptions {
  /** Clock supplying the timestamp part (defaults to the system clock). */
  readonly clock?: Clock;
}

// Random bytes are drawn in blocks: one getRandomValues call per id would
// dominate the cost of generating it.
const POOL_IDS = 256;
const pool = new Uint8Array(16 * POOL_IDS);
let poolOffset = pool.length;

/** A new UUIDv7 string such as `01936f0e-7b3c-7d2a-9c1e-4b5f6a7b8c9d`. */
export function newId(options: NewIdOptions = {}): string {
  if (poolOffset === pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += 16;
  const millis = Math.floor((options.clock ?? systemClock).now());
  const high = Math.floor(millis / 0x10000);
  const low = millis % 0x10000;
  return HEX[(high >>> 24) & 0xff] + HEX[(high >>> 16) & 0xff] + HEX[(high >>> 8) & 0xff] +
    HEX[high & 0xff] + "-" + HEX[low >>> 8] + HEX[low & 0xff] + "-" +
    HEX[(pool[r + 6] & 0x0f) | 0x70] + HEX[pool[r + 7]] + "-" + // version 7
    HEX[(pool[r + 8] & 0x3f) | 0x80] + HEX[pool[r + 9]] + "-" + // RFC 4122 variant
    HEX[pool[r + 10]] + HEX[pool[r + 11]] + HEX[pool[r + 12]] + HEX[pool[r + 13]] +
    HEX[pool[r + 14]] + HEX[pool[r + 15]];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True when `text` is a lower-case UUID in canonical form. */
export function isId(text: string): boolean {
  return UUID.test(text);
}

/** The creation instant (epoch milliseconds) carried by a UUIDv7. */
export function idTimestamp(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
