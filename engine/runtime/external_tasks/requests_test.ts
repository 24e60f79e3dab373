import assert from "node:assert/strict";
import { checkComplete, checkFailure, checkFetch } from "./requests.ts";
import type { ExternalTaskSettings } from "./settings.ts";

const SETTINGS: ExternalTaskSettings = {
  defaultLockMs: 30_000,
  maxLockMs: 3_600_000,
  maxAsyncResponseMs: 30_000,
  maxTasks: 100,
  retries: 3,
  retryTimeoutMs: 10_000,
};

Deno.test("an omitted bound takes its default, not its ceiling", () => {
  assert.deepEqual(checkFetch({ workerId: "w", channels: ["c"] }, SETTINGS), {
    ok: { workerId: "w", channels: ["c"], lockMs: 30_000, maxTasks: 100, waitMs: 0 },
  });
  assert.deepEqual(checkFailure({ workerId: "w", errorMessage: "e" }, SETTINGS), {
    ok: { workerId: "w", errorMessage: "e", retryTimeoutMs: 10_000 },
  });
});

Deno.test("durations are ISO-8601, fractions of a second included", () => {
  const checked = checkFetch({
    workerId: "w",
    channels: ["c"],
    lockDuration: "PT1M30.5S",
    asyncResponseTimeout: "PT0.25S",
    maxTasks: 7,
  }, SETTINGS);
  assert.ok("ok" in checked);
  assert.deepEqual([checked.ok.lockMs, checked.ok.waitMs, checked.ok.maxTasks], [90_500, 250, 7]);
});

Deno.test("every violation is reported, each naming its field", () => {
  const checked = checkFetch({
    workerId: 5,
    channels: "c",
    lockDuration: "PT1H0.001S",
    maxTasks: 1.5,
    asyncResponseTimeout: "P1Y",
  }, SETTINGS);
  assert.ok("diagnostics" in checked);
  assert.deepEqual(checked.diagnostics.map((d) => [d.code, d.attributes?.field]), [
    ["SUTRA.EXTERNAL_TASK.REQUEST_INVALID", "workerId"],
    ["SUTRA.EXTERNAL_TASK.REQUEST_INVALID", "channels"],
    ["SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED", "lockDuration"],
    ["SUTRA.EXTERNAL_TASK.REQUEST_INVALID", "maxTasks"],
    ["SUTRA.EXTERNAL_TASK.REQUEST_INVALID", "asyncResponseTimeout"],
  ]);
  assert.equal(checked.diagnostics[2].attributes?.requested, "PT1H0.001S");
});

Deno.test("a completion keeps a null result apart from an omitted one", () => {
  assert.deepEqual(checkComplete({ workerId: "w" }), { ok: { workerId: "w" } });
  assert.deepEqual(checkComplete({ workerId: "w", result: false }), {
    ok: { workerId: "w", result: { value: false } },
  });
  assert.ok("diagnostics" in checkComplete([]));
});

Deno.test("what the task table cannot hold is refused, not sent to the database", () => {
  const failure = checkFailure({
    workerId: "w\u0000",
    errorMessage: "x\ud800y",
    retries: 99_999_999_999,
    retryTimeout: "PT99999999999999999999S",
  }, SETTINGS);
  assert.ok("diagnostics" in failure);
  assert.deepEqual(failure.diagnostics.map((d) => d.attributes?.field), [
    "workerId",
    "errorMessage",
    "retries",
    "retryTimeout",
  ]);
  const fetched = checkFetch({ workerId: "a\u0000b", channels: ["c\u0000"] }, SETTINGS);
  assert.ok("diagnostics" in fetched);
  assert.deepEqual(fetched.diagnostics.map((d) => d.attributes?.field), ["workerId", "channels"]);
  assert.ok("diagnostics" in checkComplete({ workerId: "w\udfff" }));
});
