/**
 * Timer waits at runtime, on a manual clock: a day-long catch timer
 * settles in wall-clock seconds through the real poller; an interrupting
 * boundary timer ends a waiting user task; a non-interrupting cycle
 * boundary fires on its grid while the task keeps waiting.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import { fastForwardUntil } from "../../engine/runtime/timers/mod.ts";
import { post } from "./support.ts";
import {
  advanceTo,
  bootTimed,
  deployDir,
  eachTarget,
  HOUR,
  startOn,
  statusOf,
  T0,
  timersOf,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/timers";

eachTarget(
  "a PT24H catch timer settles through the real poller in wall seconds",
  async (target) => {
    const clock = new ManualClock(T0);
    const engine = await bootTimed(target, clock);
    try {
      await deployDir(engine, FIXTURE);
      const id = await startOn(engine, "reminder-start", {});
      assert.deepEqual(await timersOf(engine.database, id), [
        { purpose: "catch", node: "Wait", due: T0 + 24 * HOUR },
      ]);
      const wall = performance.now();
      const r = await fastForwardUntil(
        { db: engine.database, clock, timeoutMs: 10_000 },
        async () => (await statusOf(engine.database, id)).status === "COMPLETED",
      );
      assert.deepEqual(r, { settled: true, timersFired: 1 });
      assert.ok(performance.now() - wall < 10_000);
      assert.equal(clock.now(), T0 + 24 * HOUR);
      assert.deepEqual(await timersOf(engine.database, id), []);
    } finally {
      await engine.stop();
    }
  },
);

eachTarget("an interrupting boundary timer ends the waiting user task", async (target) => {
  const clock = new ManualClock(T0);
  const engine = await bootTimed(target, clock);
  try {
    await deployDir(engine, FIXTURE);
    const late = await startOn(engine, "deadline-start", { ref: "late" });
    const early = await startOn(engine, "deadline-start", { ref: "early" });
    assert.deepEqual(await timersOf(engine.database, late), [
      { purpose: "boundary", node: "TooLate", due: T0 + HOUR },
    ]);
    // Answered in time: the boundary timer goes with the task.
    const answered = await post(engine, "/channels/timer-decision", { ref: "early" });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.deepEqual(await timersOf(engine.database, early), []);

    await advanceTo(engine, clock, T0 + HOUR - 1);
    assert.equal((await statusOf(engine.database, late)).status, "RUNNING");
    await advanceTo(engine, clock, T0 + HOUR);
    assert.equal((await statusOf(engine.database, late)).status, "COMPLETED");
    const { rows } = await engine.database.query<{ node_id: string }>(
      "select node_id from audit_events where instance_id = $1 and event_type = 'node.entered' order by seq",
      [late],
    );
    assert.ok(rows.some((r) => r.node_id === "Expired"), JSON.stringify(rows));
    assert.ok(!rows.some((r) => r.node_id === "Approved"), JSON.stringify(rows));
    // The task is gone: a late decision no longer finds it.
    const tooLate = await post(engine, "/channels/timer-decision", { ref: "late" });
    assert.equal(tooLate.status, 404, JSON.stringify(tooLate.body));
  } finally {
    await engine.stop();
  }
});

eachTarget(
  "a non-interrupting cycle boundary fires on its grid while the task waits",
  async (target) => {
    const clock = new ManualClock(T0);
    const engine = await bootTimed(target, clock);
    try {
      await deployDir(engine, FIXTURE);
      const id = await startOn(engine, "nudge-start", { ref: "n-1" });
      const tenMinutes = HOUR / 6;
      for (let n = 1; n <= 3; n++) {
        assert.deepEqual(await timersOf(engine.database, id), [
          { purpose: "boundary", node: "Remind", due: T0 + n * tenMinutes },
        ]);
        // A late poll keeps to the grid: the next slot is not shifted.
        await advanceTo(engine, clock, T0 + n * tenMinutes + 1_000);
        assert.equal((await statusOf(engine.database, id)).status, "RUNNING");
      }
      const { rows } = await engine.database.query<{ n: number }>(
        "select count(*)::int as n from audit_events where instance_id = $1 and node_id = 'Reminded' and event_type = 'node.entered'",
        [id],
      );
      assert.equal(rows[0].n, 3);
      const done = await post(engine, "/channels/timer-decision", { ref: "n-1" });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal((await statusOf(engine.database, id)).status, "COMPLETED");
      assert.deepEqual(await timersOf(engine.database, id), []);
    } finally {
      await engine.stop();
    }
  },
);
