import assert from "node:assert/strict";
import type { TimerSpec } from "../../bpmn/mod.ts";
import { coalesce } from "../../executor/mod.ts";

const HOUR = 3_600_000;
const R3: TimerSpec = { kind: "cycle", repetitions: 3, intervalMillis: 12 * HOUR };
const FOREVER: TimerSpec = { kind: "cycle", repetitions: null, intervalMillis: HOUR };

Deno.test("coalesce: an on-time fire is one slot and points at the next", () => {
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 12 * HOUR), { slot: 1, next: 24 * HOUR });
  assert.deepEqual(coalesce(R3, 24 * HOUR, 1, 24 * HOUR + 5), { slot: 2, next: 36 * HOUR });
});

Deno.test("coalesce: missed slots become one fire and still spend the repeat budget", () => {
  // Down from before slot 1 until between slots 2 and 3.
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 30 * HOUR), { slot: 2, next: 36 * HOUR });
  // Down past the last slot: one fire, and the grid is spent.
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 100 * HOUR), { slot: 3 });
  assert.deepEqual(coalesce(R3, 36 * HOUR, 2, 36 * HOUR), { slot: 3 });
});

Deno.test("coalesce: an unbounded cycle keeps to its grid after downtime", () => {
  assert.deepEqual(coalesce(FOREVER, HOUR, 0, 5.5 * HOUR), { slot: 5, next: 6 * HOUR });
});

Deno.test("coalesce: a duration or date start fires once", () => {
  assert.deepEqual(coalesce({ kind: "duration", millis: HOUR }, HOUR, 0, 9 * HOUR), { slot: 1 });
  assert.deepEqual(coalesce({ kind: "date", epochMillis: 7 }, 7, 0, 9), { slot: 1 });
});

Deno.test("coalesce: an end instant closes the grid", () => {
  const bounded: TimerSpec = {
    kind: "cycle",
    repetitions: null,
    intervalMillis: HOUR,
    endEpochMillis: 2.5 * HOUR,
  };
  assert.deepEqual(coalesce(bounded, HOUR, 0, HOUR), { slot: 1, next: 2 * HOUR });
  assert.deepEqual(coalesce(bounded, 2 * HOUR, 1, 2 * HOUR), { slot: 2 });
});
