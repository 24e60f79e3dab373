import assert from "node:assert/strict";
import { Lanes, offLane } from "./lanes.ts";

Deno.test("lanes: a key always hashes to the same lane, and keys spread over every lane", () => {
  const lanes = new Lanes({ count: 4 });
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

Deno.test("lanes: a full lane makes new work wait for room, in arrival order", async () => {
  const lanes = new Lanes({ count: 1, capacity: 2 });
  const log: string[] = [];
  let release = () => {};
  const gate = new Promise<void>((r) => release = r);
  const offered: string[] = [];
  const item = (name: string, wait?: Promise<void>) => {
    offered.push(name);
    return lanes.run("k", async () => {
      log.push(name);
      await wait;
    }).then(() => name);
  };
  const all = [item("a", gate), item("b"), item("c"), item("d")];
  // c and d are held back: nothing of theirs has run, and they have not been refused.
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(log, ["a"]);
  release();
  assert.deepEqual(await Promise.all(all), ["a", "b", "c", "d"]);
  assert.deepEqual(log, offered);
  await lanes.idle();
});

Deno.test("lanes: idle waits for offers still waiting for room", async () => {
  const lanes = new Lanes({ count: 1, capacity: 1 });
  const done: string[] = [];
  for (const name of ["a", "b", "c"]) {
    void lanes.run("k", async () => {
      await new Promise((r) => setTimeout(r, 5));
      done.push(name);
    });
  }
  await lanes.idle();
  assert.deepEqual(done, ["a", "b", "c"]);
});

Deno.test("lanes: work waiting off its lane lets other keys run; its own key waits for it", async () => {
  const lanes = new Lanes({ count: 1 });
  const log: string[] = [];
  const gate = Promise.withResolvers<void>();
  const a = lanes.run("a", async () => {
    log.push("a+");
    await offLane(() => gate.promise);
    log.push("a-");
  });
  const a2 = lanes.run("a", () => Promise.resolve(void log.push("a2")));
  // b runs to the end while a still waits off the lane; a2 does not start.
  await lanes.run("b", () => Promise.resolve(void log.push("b")));
  assert.deepEqual(log, ["a+", "b"]);
  gate.resolve();
  await Promise.all([a, a2]);
  assert.deepEqual(log, ["a+", "b", "a-", "a2"]);
  await lanes.idle();
});

Deno.test("lanes: an item back from off-lane work goes before items not started yet", async () => {
  const lanes = new Lanes({ count: 1 });
  const log: string[] = [];
  const io = Promise.withResolvers<void>();
  const hold = Promise.withResolvers<void>();
  const a = lanes.run("a", async () => {
    await offLane(() => io.promise);
    log.push("a back");
  });
  // b takes the lane while a is away and keeps it until told.
  const b = lanes.run("b", async () => {
    log.push("b");
    await hold.promise;
  });
  const c = lanes.run("c", () => Promise.resolve(void log.push("c")));
  await new Promise((r) => setTimeout(r, 0));
  io.resolve();
  await new Promise((r) => setTimeout(r, 0));
  hold.resolve();
  await Promise.all([a, b, c]);
  assert.deepEqual(log, ["b", "a back", "c"]);
});

Deno.test("lanes: offLane outside lane work just runs the operation", async () => {
  assert.equal(await offLane(() => Promise.resolve(7)), 7);
});
