import assert from "node:assert/strict";
import { PollLoop } from "./poll_loop.ts";

const HOUR = 3_600_000;

/** A loop whose passes are counted and can be held open; `passed(n)` waits for the n-th. */
function countingLoop(o: { again?: (n: number) => boolean } = {}) {
  let passes = 0;
  let hold: Promise<void> | undefined;
  const waiters: { n: number; resolve: () => void }[] = [];
  const loop = new PollLoop({
    intervalMs: HOUR,
    onError: (error) => assert.fail(String(error)),
    pass: async () => {
      const n = ++passes;
      await hold;
      for (const w of waiters.filter((w) => w.n <= n)) w.resolve();
      return o.again?.(n) ?? false;
    },
  });
  return {
    loop,
    get passes() {
      return passes;
    },
    passed: (n: number) =>
      passes >= n && !hold ? Promise.resolve() : new Promise<void>((resolve) => {
        waiters.push({ n, resolve });
      }),
    holdPasses(): () => void {
      const { promise, resolve } = Promise.withResolvers<void>();
      hold = promise;
      return () => {
        hold = undefined;
        resolve();
      };
    },
  };
}

Deno.test("a woken loop runs its next pass now, not after the idle interval", async () => {
  const c = countingLoop();
  c.loop.start();
  await c.passed(1);
  c.loop.wake();
  await c.passed(2);
  c.loop.wake();
  await c.passed(3);
  await c.loop.stop();
  assert.equal(c.passes, 3);
});

Deno.test("a wake during a pass has another pass follow it at once", async () => {
  const c = countingLoop();
  const release = c.holdPasses();
  c.loop.start();
  // The first pass is held open; two wakes meanwhile ask for one more pass, not two.
  c.loop.wake();
  c.loop.wake();
  release();
  await c.passed(2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await c.loop.stop();
  assert.equal(c.passes, 2);
});

Deno.test("a pass that says there is more is followed at once, until it says no", async () => {
  const c = countingLoop({ again: (n) => n < 5 });
  c.loop.start();
  await c.passed(5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await c.loop.stop();
  assert.equal(c.passes, 5);
});

Deno.test("a stopped loop ignores wakes and leaves nothing scheduled", async () => {
  const c = countingLoop({ again: () => true });
  c.loop.start();
  await c.passed(3);
  await c.loop.stop();
  const stoppedAt = c.passes;
  c.loop.wake();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(c.passes, stoppedAt);
});
