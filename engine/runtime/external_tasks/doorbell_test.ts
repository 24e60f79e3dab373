import assert from "node:assert/strict";
import { Doorbell } from "./doorbell.ts";

const HOUR = 3_600_000;

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a ring that lands before the wait ends the next wait at once", async () => {
  const bell = new Doorbell();
  const subscription = bell.subscribe(["pull://a"]);
  const never = new AbortController();
  bell.ring("pull://a");
  let woke = false;
  const waiting = subscription.wait(HOUR, never.signal).then(() => woke = true);
  await settle();
  assert.ok(woke);
  await waiting;
  subscription.close();
});

Deno.test("a ring on another key does not wake; one on the subscribed key does", async () => {
  const bell = new Doorbell();
  const subscription = bell.subscribe(["pull://a", "pull://b"]);
  const never = new AbortController();
  let woke = false;
  const waiting = subscription.wait(HOUR, never.signal).then(() => woke = true);
  bell.ring("pull://c");
  await settle();
  assert.equal(woke, false);
  bell.ring("pull://b");
  await waiting;
  assert.ok(woke);
  subscription.close();
});

Deno.test("a consumed ring is not remembered twice, and a closed subscription hears nothing", async () => {
  const bell = new Doorbell();
  const subscription = bell.subscribe(["pull://a"]);
  const stop = new AbortController();
  bell.ring("pull://a");
  await subscription.wait(HOUR, stop.signal);
  subscription.close();
  bell.ring("pull://a");
  let woke = false;
  const waiting = subscription.wait(HOUR, stop.signal).then(() => woke = true);
  await settle();
  assert.equal(woke, false);
  stop.abort();
  await waiting;
  assert.ok(woke);
});
