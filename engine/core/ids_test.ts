import assert from "node:assert/strict";
import { ManualClock } from "./clock.ts";
import { idTimestamp, isId, newId } from "./ids.ts";

Deno.test("ids are UUIDv7 carrying the clock's instant", () => {
  const clock = new ManualClock("2026-11-30T10:00:00.123Z");
  const id = newId({ clock });
  assert.ok(isId(id), id);
  assert.equal(id[14], "7");
  assert.ok("89ab".includes(id[19]));
  assert.equal(idTimestamp(id), clock.now());
});

Deno.test("ids are unique and sort by creation time", () => {
  const clock = new ManualClock(1_000);
  const ids: string[] = [];
  for (let i = 0; i < 1000; i++) {
    clock.advance(1);
    ids.push(newId({ clock }));
  }
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
});
