import assert from "node:assert/strict";
import { KeyOrder } from "./key_order.ts";

function gate(): { open: () => void; opened: Promise<void> } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { open: resolve, opened: promise };
}

Deno.test("work under one key runs in offer order, one at a time", async () => {
  const order = new KeyOrder();
  const seen: string[] = [];
  const first = gate();
  const a = order.run("k", async () => {
    seen.push("a:start");
    await first.opened;
    seen.push("a:end");
  });
  const b = order.run("k", () => {
    seen.push("b");
    return Promise.resolve();
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(seen, ["a:start"]);
  first.open();
  await Promise.all([a, b]);
  assert.deepEqual(seen, ["a:start", "a:end", "b"]);
  assert.equal(order.size, 0);
});

Deno.test("other keys and keyless work do not wait", async () => {
  const order = new KeyOrder();
  const held = gate();
  const seen: string[] = [];
  const a = order.run("k1", () => held.opened.then(() => void seen.push("k1")));
  await order.run("k2", () => Promise.resolve(void seen.push("k2")));
  await order.run(undefined, () => Promise.resolve(void seen.push("none")));
  assert.deepEqual(seen, ["k2", "none"]);
  held.open();
  await a;
  assert.deepEqual(seen, ["k2", "none", "k1"]);
});

Deno.test("a failure reaches its own caller and does not stop the key", async () => {
  const order = new KeyOrder();
  const failed = order.run("k", () => Promise.reject(new Error("boom")));
  const next = order.run("k", () => Promise.resolve("ran"));
  await assert.rejects(failed, /boom/);
  assert.equal(await next, "ran");
});
