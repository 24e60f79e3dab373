import assert from "node:assert/strict";
import type { TimerSpec } from "../../bpmn/mod.ts";
import { coalesce } from "../../executor/mod.ts";
import { ManualClock } from "../../core/mod.ts";
import type { Database } from "../../persistence/mod.ts";
import { fastForwardUntil } from "./mod.ts";
import { deployDir, eachTarget, T0, withEngine } from "../../../tests/runtime/timers_support.ts";

const HOUR = 3_600_000;
const R3: TimerSpec = { kind: "cycle", repetitions: 3, intervalMillis: 12 * HOUR };
const FOREVER: TimerSpec = { kind: "cycle", repetitions: null, intervalMillis: HOUR };

Deno.test("coalesce: an on-time fire is one slot and points at the next", () => {
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 12 * HOUR), { slot: 1, next: 24 * HOUR });
  assert.deepEqual(coalesce(R3, 24 * HOUR, 1, 24 * HOUR + 5), { slot: 2, next: 36 * HOUR });
});

Deno.test("coalesce: missed slots become one fire and still spend the repeat budget", () => {
  // Down from before slot 1 until between slots 2 and 3.
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 30 * HOUR), { slot: 2, next: 36 * HOUR });
  // Down past the last slot: one fire, and the grid is spent.
  assert.deepEqual(coalesce(R3, 12 * HOUR, 0, 100 * HOUR), { slot: 3 });
  assert.deepEqual(coalesce(R3, 36 * HOUR, 2, 36 * HOUR), { slot: 3 });
});

Deno.test("coalesce: an unbounded cycle keeps to its grid after downtime", () => {
  assert.deepEqual(coalesce(FOREVER, HOUR, 0, 5.5 * HOUR), { slot: 5, next: 6 * HOUR });
});

Deno.test("coalesce: a duration or date start fires once", () => {
  assert.deepEqual(coalesce({ kind: "duration", millis: HOUR }, HOUR, 0, 9 * HOUR), { slot: 1 });
  assert.deepEqual(coalesce({ kind: "date", epochMillis: 7 }, 7, 0, 9), { slot: 1 });
});

Deno.test("coalesce: an end instant closes the grid", () => {
  const bounded: TimerSpec = {
    kind: "cycle",
    repetitions: null,
    intervalMillis: HOUR,
    endEpochMillis: 2.5 * HOUR,
  };
  assert.deepEqual(coalesce(bounded, HOUR, 0, HOUR), { slot: 1, next: 2 * HOUR });
  assert.deepEqual(coalesce(bounded, 2 * HOUR, 1, 2 * HOUR), { slot: 2 });
});

// ------------------------------------------------------ timer start events written as FEEL

async function packageWith(timers: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-schedule-expr-" });
  await Deno.mkdir(`${dir}/bpmn`);
  const processes = Object.entries(timers).map(([id, cycle]) => `
  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="${id}Tick">
      <bpmn:timerEventDefinition><bpmn:timeCycle>${cycle}</bpmn:timeCycle></bpmn:timerEventDefinition>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="${id}Flow" sourceRef="${id}Tick" targetRef="${id}Done"/>
    <bpmn:endEvent id="${id}Done"/>
  </bpmn:process>`).join("");
  await Deno.writeTextFile(
    `${dir}/bpmn/schedule.bpmn`,
    `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                  id="schedule" targetNamespace="urn:test:schedule-expr">${processes}
</bpmn:definitions>`,
  );
  await Deno.writeTextFile(`${dir}/channels.yaml`, "channels: []\n");
  await Deno.writeTextFile(
    `${dir}/package.yaml`,
    "labels:\n  tenant: test\n  module: schedule-expr\n  version: 1.0.0\nengine:\n  minContract: 1\n",
  );
  return dir;
}

async function scheduleRow(db: Database, process: string) {
  const { rows } = await db.query<
    { status: string; due_at: Date | null; slots: number; fires: number }
  >("select status, due_at, slots, fires from schedules where process_id = $1", [process]);
  assert.equal(rows.length, 1);
  const r = rows[0];
  const due = r.due_at === null ? null : new Date(r.due_at).getTime();
  return { status: r.status, due, slots: r.slots, fires: r.fires };
}

eachTarget(
  "a timer start event with a constant FEEL cycle arms and fires as a schedule",
  async (target) => {
    const dir = await packageWith({
      computed: '="R2/PT" + string(6) + "H"',
      // Refused at load were it constant (it is, at load, well after T0); on the virtual clock it
      // gives a value that is no cycle when the schedule is armed.
      broken: '=if now() &lt; date and time("2026-09-01T00:00:00Z") then "soon" else "R/PT1H"',
    });
    const clock = new ManualClock(T0);
    try {
      await withEngine({ target, clock }, async (engine) => {
        await deployDir(engine, dir);
        const db = engine.database;
        assert.deepEqual(await scheduleRow(db, "computed"), {
          status: "armed",
          due: T0 + 6 * HOUR,
          slots: 0,
          fires: 0,
        });
        // A value that is no cycle spends the schedule without a fire (and is logged).
        assert.deepEqual(await scheduleRow(db, "broken"), {
          status: "spent",
          due: null,
          slots: 0,
          fires: 0,
        });
        const r = await fastForwardUntil(
          { db, clock, timeoutMs: 10_000 },
          async () => (await scheduleRow(db, "computed")).status === "spent",
        );
        assert.equal(r.settled, true);
        assert.equal(clock.now(), T0 + 12 * HOUR);
        assert.deepEqual(await scheduleRow(db, "computed"), {
          status: "spent",
          due: null,
          slots: 2,
          fires: 2,
        });
        const { rows } = await db.query<{ n: number }>(
          "select count(*)::int as n from instances where process_id = 'computed' and status = 'COMPLETED'",
        );
        assert.equal(rows[0].n, 2);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
