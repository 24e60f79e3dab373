import assert from "node:assert/strict";
import { LaneFullError, Lanes } from "./lanes.ts";

Deno.test("lanes: a key always hashes to the same lane, and keys spread over every lane", () => {
  const lanes = new Lanes({ count: 4, capacity: 10 });
  assert.equal(
    lanes.laneOf("instance-1"),
    new Lanes({ count: 4, capacity: 1 }).laneOf("instance-1"),
  );
  const used = new Set(Array.from({ length: 64 }, (_, i) => lanes.laneOf(`id-${i}`)));
  assert.deepEqual([...used].sort(), [0, 1, 2, 3]);
});

Deno.test("lanes: work on one lane runs one at a time, in order, even when an item fails", async () => {
  const lanes = new Lanes({ count: 1, capacity: 10 });
  const log: string[] = [];
  const item = (name: string, fail = false) =>
    lanes.run("k", async () => {
      log.push(`${name}+`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`${name}-`);
      if (fail) throw new Error(name);
    });
  const results = await Promise.allSettled([item("a"), item("b", true), item("c")]);
  assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.deepEqual(log, ["a+", "a-", "b+", "b-", "c+", "c-"]);
});

Deno.test("lanes: a full lane refuses new work instead of queueing it", async () => {
  const lanes = new Lanes({ count: 1, capacity: 2 });
  let release = () => {};
  const gate = new Promise<void>((r) => release = r);
  const first = lanes.run("k", () => gate);
  const second = lanes.run("k", () => Promise.resolve());
  await assert.rejects(lanes.run("k", () => Promise.resolve()), LaneFullError);
  release();
  await Promise.all([first, second]);
  await lanes.run("k", () => Promise.resolve());
  await lanes.idle();
});
