import assert from "node:assert/strict";
import {
  DEFAULT_STORE_RETRY,
  isTransientStoreError,
  retryDelayMs,
  TransientStoreError,
} from "./transient.ts";

Deno.test("retry waits double from the base, stop at the cap, and jitter down by up to half", () => {
  const policy = { attempts: 6, baseDelayMs: 20, maxDelayMs: 100 };
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, () => 1)), [
    20,
    40,
    80,
    100,
    100,
  ]);
  assert.deepEqual([1, 2, 3].map((n) => retryDelayMs(policy, n, () => 0)), [10, 20, 40]);
  assert.ok(DEFAULT_STORE_RETRY.attempts > 1);
});

Deno.test("a transient store error keeps the driver's message and is recognised", () => {
  const cause = new Error("deadlock detected");
  const error = new TransientStoreError("accounts", { reason: "deadlock", cause });
  assert.equal(error.message, "data store 'accounts': deadlock: deadlock detected");
  assert.equal(error.cause, cause);
  assert.ok(isTransientStoreError(error));
  assert.ok(!isTransientStoreError(cause));
});
