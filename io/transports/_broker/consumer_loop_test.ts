import assert from "node:assert/strict";
import { createLogger } from "../../../engine/core/log.ts";
import { ConsumerLoop } from "./consumer_loop.ts";

/** Resolves once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Polls `condition` every few milliseconds until it holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A loop whose sessions last until it stops, recording what happens in `events`. */
function loopOf(events: string[]): ConsumerLoop {
  const loop: ConsumerLoop = new ConsumerLoop({
    logger: createLogger("test", { write: () => {} }),
    what: "test channel 'orders'",
    session: async (connected) => {
      events.push("session");
      connected();
      await aborted(loop.signal);
      events.push("session ended");
    },
    drain: () => {
      events.push(`drain (aborted: ${loop.signal.aborted})`);
      return Promise.resolve();
    },
    closed: () => {
      events.push("closed");
      return Promise.resolve();
    },
  });
  return loop;
}

Deno.test("ConsumerLoop: stop aborts, drains, waits for the session, then closes", async () => {
  const events: string[] = [];
  const loop = loopOf(events);
  loop.start();
  loop.start();
  await until(() => events.length === 1);
  await loop.stop();
  assert.deepEqual(events, ["session", "drain (aborted: true)", "session ended", "closed"]);
});

Deno.test("ConsumerLoop: a start during a stop runs after it, with a fresh signal", async () => {
  const events: string[] = [];
  const loop = loopOf(events);
  loop.start();
  await until(() => events.length === 1);
  const stopping = loop.stop();
  const first = loop.signal;
  loop.start();
  await stopping;
  await until(() => events.length === 5);
  assert.equal(events[4], "session");
  assert.ok(first.aborted);
  assert.ok(!loop.signal.aborted);
  await loop.stop();
});

Deno.test("ConsumerLoop: a stop after a deferred start takes it back (a lease lost, won, lost)", async () => {
  const events: string[] = [];
  const loop = loopOf(events);
  loop.start();
  await until(() => events.length === 1);
  const stopping = loop.stop();
  loop.start();
  assert.equal(loop.stop(), stopping, "a second stop shares the one under way");
  await stopping;
  // Give a wrongly kept start every chance to run.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(events, ["session", "drain (aborted: true)", "session ended", "closed"]);
});

Deno.test("ConsumerLoop: stopping a loop never started does nothing", async () => {
  const events: string[] = [];
  await loopOf(events).stop();
  assert.deepEqual(events, []);
});
