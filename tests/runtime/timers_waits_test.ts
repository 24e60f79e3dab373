/**
 * Timer waits at runtime, on a manual clock: a day-long catch timer
 * settles in wall-clock seconds through the real poller; an interrupting
 * boundary timer ends a waiting user task; a non-interrupting cycle
 * boundary fires on its grid while the task keeps waiting.
 */
import assert from "node:assert/strict";
import { fastForwardUntil } from "../../engine/runtime/timers/mod.ts";
import { post } from "./support.ts";
import {
  advanceTo,
  eachDeployed,
  enteredNodes,
  HOUR,
  startOn,
  statusOf,
  T0,
  timersOf,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/timers";

eachDeployed(
  "a PT24H catch timer settles through the real poller in wall seconds",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
    const id = await startOn(engine, "reminder-start", {});
    assert.deepEqual(await timersOf(engine.database, id), [
      { purpose: "catch", node: "Wait", due: T0 + 24 * HOUR },
    ]);
    const r = await fastForwardUntil(
      { db: engine.database, clock, timeoutMs: 10_000 },
      async () => (await statusOf(engine.database, id)).status === "COMPLETED",
    );
    // Settled inside the driver's wall-clock budget: a day of virtual time in seconds.
    assert.deepEqual(r, { settled: true, timersFired: 1 });
    assert.equal(clock.now(), T0 + 24 * HOUR);
    assert.deepEqual(await timersOf(engine.database, id), []);
  },
);

eachDeployed(
  "an interrupting boundary timer ends the waiting user task",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
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
    const entered = await enteredNodes(engine.database, late);
    assert.ok(entered.includes("Expired"), JSON.stringify(entered));
    assert.ok(!entered.includes("Approved"), JSON.stringify(entered));
    // The task is gone: a late decision no longer finds it.
    const tooLate = await post(engine, "/channels/timer-decision", { ref: "late" });
    assert.equal(tooLate.status, 404, JSON.stringify(tooLate.body));
  },
);

eachDeployed(
  "a non-interrupting cycle boundary fires on its grid while the task waits",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
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
    const reminders = (await enteredNodes(engine.database, id)).filter((n) => n === "Reminded");
    assert.equal(reminders.length, 3);
    const done = await post(engine, "/channels/timer-decision", { ref: "n-1" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await statusOf(engine.database, id)).status, "COMPLETED");
    assert.deepEqual(await timersOf(engine.database, id), []);
  },
);
