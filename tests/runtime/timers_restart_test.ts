/**
 * Timers are durable rows, not sleeps: an armed catch timer and an armed
 * retry backoff left by one engine are fired — exactly once — by the next
 * engine started on the same database.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import {
  advanceTo,
  auditCount,
  deployDir,
  eachTarget,
  HOUR,
  startOn,
  statusOf,
  T0,
  timersOf,
  withEngine,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/timers";

eachTarget("an armed catch timer survives a restart and fires once", async (target) => {
  const clock = new ManualClock(T0);
  const id = await withEngine({ target, clock }, async (first) => {
    await deployDir(first, FIXTURE);
    return await startOn(first, "reminder-start", {});
  });
  await withEngine({ target, clock }, async (second) => {
    assert.deepEqual(await timersOf(second.database, id), [
      { purpose: "catch", node: "Wait", due: T0 + 24 * HOUR },
    ]);
    await advanceTo(second, clock, T0 + 24 * HOUR);
    await advanceTo(second, clock, T0 + 48 * HOUR);
    assert.equal((await statusOf(second.database, id)).status, "COMPLETED");
    assert.equal(await auditCount(second.database, id, "instance.completed"), 1);
  });
});

eachTarget("an armed retry backoff survives a restart and re-drives once", async (target) => {
  const clock = new ManualClock(T0);
  const id = await withEngine({ target, clock }, async (first) => {
    await deployDir(first, FIXTURE);
    const id = await startOn(first, "score-start", { ref: "r-1" });
    // The first attempt times out: the call parks in a 1 s backoff.
    await advanceTo(first, clock, T0 + 5_000);
    assert.deepEqual(await timersOf(first.database, id), [
      { purpose: "retry", node: "Score", due: T0 + 6_000 },
    ]);
    return id;
  });
  await withEngine({ target, clock }, async (second) => {
    await advanceTo(second, clock, T0 + 6_000);
    assert.deepEqual(await timersOf(second.database, id), [
      { purpose: "timeout", node: "Score", due: T0 + 11_000 },
    ]);
    const { rows } = await second.database.query<{ idempotency_key: string }>(
      "select idempotency_key from outbox where instance_id = $1",
      [id],
    );
    assert.equal(rows.length, 1, "the re-drive sent exactly one request");
    assert.match(rows[0].idempotency_key, /:Score:\d+:2$/);
    assert.equal(await auditCount(second.database, id, "task.retryScheduled"), 1);
    assert.equal((await statusOf(second.database, id)).status, "RUNNING");
  });
});
