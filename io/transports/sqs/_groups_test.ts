import assert from "node:assert/strict";
import { GroupOrder } from "./_groups.ts";

const tick = () => new Promise((r) => setTimeout(r, 1));

Deno.test("GroupOrder runs one group's work in submission order, other groups alongside", async () => {
  const order = new GroupOrder();
  const seen: string[] = [];
  let running = 0;
  let overlap = 0;
  const item = (label: string, wait: number) => async () => {
    running++;
    overlap = Math.max(overlap, running);
    for (let i = 0; i < wait; i++) await tick();
    seen.push(label);
    running--;
    return true;
  };
  await Promise.all([
    order.submit("a", item("a1", 5)),
    order.submit("b", item("b1", 1)),
    order.submit("a", item("a2", 1)),
    order.submit(undefined, item("x", 0)),
    order.submit("a", item("a3", 0)),
  ]);
  assert.deepEqual(seen.filter((s) => s.startsWith("a")), ["a1", "a2", "a3"]);
  assert.ok(overlap > 1, "different groups run at the same time");
  assert.equal(order.size, 0);
});

Deno.test("GroupOrder tells the items behind an unconsumed one that their group is broken", async () => {
  const order = new GroupOrder();
  const told: boolean[] = [];
  await Promise.all([
    order.submit("g", () => Promise.resolve(false)),
    order.submit("g", (broken) => Promise.resolve(told.push(broken) > 0)),
    order.submit("g", (broken) => Promise.resolve(told.push(broken) > 0)),
  ]);
  assert.deepEqual(told, [true, true]);
  // Once the group has drained it starts afresh.
  await order.submit("g", (broken) => Promise.resolve(told.push(broken) > 0));
  assert.deepEqual(told, [true, true, false]);
});
