import assert from "node:assert/strict";
import { ManualClock, systemClock } from "./clock.ts";

Deno.test("the manual clock moves only when told, never backwards", () => {
  const clock = new ManualClock("2026-01-01T00:00:00Z");
  const start = clock.now();
  assert.equal(clock.now(), start);
  clock.advance(1500);
  assert.equal(clock.now(), start + 1500);
  clock.set("2026-01-02T00:00:00Z");
  assert.equal(clock.now(), start + 86_400_000);
  assert.throws(() => clock.advance(-1), RangeError);
  assert.throws(() => clock.set(start), RangeError);
  assert.throws(() => new ManualClock("not a time"), RangeError);
});

Deno.test("the system clock reads the wall clock", () => {
  const before = Date.now();
  const now = systemClock.now();
  assert.ok(now >= before && now <= Date.now());
});
