import assert from "node:assert/strict";
import { PartitionOffsets } from "./offsets.ts";
import { KeyedSequencer } from "./ordering.ts";

Deno.test("the watermark never passes an unfinished offset", () => {
  const p = new PartitionOffsets(10);
  for (const o of [5n, 6n, 7n, 9n]) p.begin(o);
  // Nothing finished: nothing to commit (the group's offset is where reading started).
  assert.equal(p.due(), undefined);
  p.finish(7n);
  p.finish(6n);
  assert.equal(p.due(), undefined);
  p.finish(5n);
  assert.equal(p.due(), 9n);
  p.committed(9n);
  assert.equal(p.due(), undefined);
  p.finish(9n);
  // Offset 8 was never delivered (a gap in the log): the next offset to read is 10.
  assert.equal(p.due(), 10n);
  assert.equal(p.inFlight, 0);
});

Deno.test("room waits while the partition is full", async () => {
  const p = new PartitionOffsets(1);
  p.begin(0n);
  let roomy = false;
  const waiting = p.room().then(() => roomy = true);
  await Promise.resolve();
  assert.equal(roomy, false);
  p.finish(0n);
  await waiting;
  assert.equal(roomy, true);
});

Deno.test("room gives up after its wait, clearing its timer once woken", async () => {
  const p = new PartitionOffsets(1);
  p.begin(0n);
  // Still full when the wait ends: the caller heartbeats and waits again.
  assert.equal(await p.room(1), false);
  // Woken by a finish: true, and no timer outlives it (the test's op sanitizer checks).
  const woken = p.room(60_000);
  p.finish(0n);
  assert.equal(await woken, true);
  p.begin(1n);
  const released = p.room(60_000);
  p.release();
  assert.equal(await released, true);
});

Deno.test("one key's items run in order, other keys meanwhile", async () => {
  const s = new KeyedSequencer();
  const events: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const a1 = s.run("a", async () => {
    events.push("a1 start");
    await gate;
    events.push("a1 end");
  });
  const a2 = s.run("a", () => {
    events.push("a2");
    return Promise.resolve();
  });
  const b1 = s.run("b", () => {
    events.push("b1");
    return Promise.resolve();
  });
  await b1;
  assert.deepEqual(events, ["a1 start", "b1"]);
  release();
  await Promise.all([a1, a2]);
  assert.deepEqual(events, ["a1 start", "b1", "a1 end", "a2"]);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(s.size, 0);
});
