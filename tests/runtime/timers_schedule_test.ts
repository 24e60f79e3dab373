/**
 * Schedules (timer start events) at runtime, on a manual clock: armed when
 * the deployment becomes active, fired through the real poller as new
 * instances, re-armed by the next engine after a restart, coalesced over
 * downtime without ever bursting, and spent by the grid — `R3/PT12H` never
 * outlives its third slot. Undeploying resolves the schedule.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import { earliestDue, fastForwardUntil } from "../../engine/runtime/timers/mod.ts";
import {
  advanceTo,
  deployDir,
  eachDeployed,
  eachTarget,
  HOUR,
  pollUntil,
  T0,
  withEngine,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/timer_schedule";

interface ScheduleState {
  status: string;
  due: number | null;
  slots: number;
  fires: number;
}

async function scheduleOf(db: Database): Promise<ScheduleState> {
  const { rows } = await db.query<
    { status: string; due_at: Date | null; slots: number; fires: number }
  >("select status, due_at, slots, fires from schedules where node_id = 'Tick'");
  assert.equal(rows.length, 1);
  const r = rows[0];
  return {
    status: r.status,
    due: r.due_at === null ? null : new Date(r.due_at).getTime(),
    slots: r.slots,
    fires: r.fires,
  };
}

async function completedInstances(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number; live: number }>(
    `select count(*)::int as n, count(*) filter (where status <> 'COMPLETED')::int as live
       from instances where process_id = 'twiceDaily'`,
  );
  assert.equal(rows[0].live, 0);
  return rows[0].n;
}

eachDeployed(
  "R3/PT12H fires exactly three times, then the schedule is spent",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
    assert.deepEqual(await scheduleOf(engine.database), {
      status: "armed",
      due: T0 + 12 * HOUR,
      slots: 0,
      fires: 0,
    });
    const r = await fastForwardUntil(
      { db: engine.database, clock, timeoutMs: 10_000 },
      async () => (await scheduleOf(engine.database)).status === "spent",
    );
    assert.equal(r.settled, true);
    assert.equal(clock.now(), T0 + 36 * HOUR);
    assert.deepEqual(await scheduleOf(engine.database), {
      status: "spent",
      due: null,
      slots: 3,
      fires: 3,
    });
    await advanceTo(engine, clock, T0 + 30 * 24 * HOUR);
    assert.equal(await completedInstances(engine.database), 3);
  },
);

eachTarget(
  "downtime across two slots: one coalesced fire at boot, the third slot on its grid, never a fourth",
  async (target) => {
    const clock = new ManualClock(T0);
    await withEngine({ target, clock }, (first) => deployDir(first, FIXTURE));
    // No engine runs while slots 1 (T0+12h) and 2 (T0+24h) pass.
    clock.set(T0 + 30 * HOUR);
    await withEngine({ target, clock }, async (second) => {
      await advanceTo(second, clock, T0 + 30 * HOUR);
      assert.deepEqual(await scheduleOf(second.database), {
        status: "armed",
        due: T0 + 36 * HOUR,
        slots: 2,
        fires: 1,
      });
      assert.equal(await completedInstances(second.database), 1);
      await advanceTo(second, clock, T0 + 36 * HOUR);
      await advanceTo(second, clock, T0 + 30 * 24 * HOUR);
      assert.deepEqual(await scheduleOf(second.database), {
        status: "spent",
        due: null,
        slots: 3,
        fires: 2,
      });
      assert.equal(await completedInstances(second.database), 2);
    });
  },
);

eachDeployed(
  "undeploying resolves the schedule; nothing fires afterwards",
  { fixture: FIXTURE },
  async ({ engine, clock, deploymentId }) => {
    await advanceTo(engine, clock, T0 + 12 * HOUR);
    assert.equal((await scheduleOf(engine.database)).fires, 1);
    await engine.deployments.undeploy(deploymentId);
    await pollUntil(async () => (await scheduleOf(engine.database)).status === "resolved", 200);
    assert.equal((await scheduleOf(engine.database)).status, "resolved");
    // Nothing is armed any more, so nothing can come due however far the clock moves.
    assert.equal(await earliestDue(engine.database), undefined);
    assert.equal(await completedInstances(engine.database), 1);
  },
);
