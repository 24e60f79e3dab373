/**
 * `q:process idempotent` decides what becomes of a captured message whose
 * run failed. A non-idempotent process's message is consumed and an
 * incident recorded; an idempotent process's stays pending and is run again
 * by the redrive, so it completes once the fault is gone.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, post, sealDir } from "./support.ts";

const FAST_REDRIVE = {
  SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.2S",
  SUTRA_INBOX_REDRIVE_AFTER: "PT0.5S",
};

async function park(engine: RunningEngine, channel: string): Promise<string> {
  const parked = await post(engine, `/channels/${channel}`, { ref: "R-1" });
  assert.equal(parked.status, 200, JSON.stringify(parked.body));
  return (parked.body.instances as { instanceId: string }[])[0].instanceId;
}

async function one<T>(engine: RunningEngine, sql: string, id: string): Promise<T | undefined> {
  const { rows } = await engine.database.query<T>(sql, [id]);
  return rows[0];
}

const statusOf = (engine: RunningEngine, id: string) =>
  one<{ status: string }>(engine, "select status from instances where instance_id = $1", id)
    .then((r) => r?.status);
const incidentOf = (engine: RunningEngine, id: string) =>
  one<{ code: string }>(engine, "select code from incidents where instance_id = $1", id);

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting until ${what}`);
}

async function breakSnapshot(engine: RunningEngine, id: string): Promise<Uint8Array> {
  const row = await one<{ snapshot: Uint8Array }>(
    engine,
    "select snapshot from instances where instance_id = $1",
    id,
  );
  await engine.database.query(
    "update instances set snapshot = $2 where instance_id = $1",
    [id, new Uint8Array([0xff, 0x00, 0x13])],
  );
  return row!.snapshot;
}

Deno.test("a failed captured run is consumed unless the process is idempotent", async () => {
  const engine = await bootEngine({ env: FAST_REDRIVE });
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/idempotent_hold"));
    const once = await park(engine, "ih-once");
    const again = await park(engine, "ih-again");
    const onceSnapshot = await breakSnapshot(engine, once);
    const againSnapshot = await breakSnapshot(engine, again);

    for (const decision of [{ aref: "R-1" }, { oref: "R-1" }]) {
      const captured = await post(engine, "/channels/ih-decision", decision);
      assert.equal(captured.status, 202, JSON.stringify(captured.body));
    }
    await until(
      "the non-idempotent failure is recorded",
      async () => (await incidentOf(engine, once)) !== undefined,
    );
    assert.match((await incidentOf(engine, once))!.code, /^SUTRA\.RUNTIME\./);
    assert.equal(await incidentOf(engine, again), undefined);

    // With the fault repaired, only the idempotent process's decision is still there to run.
    await engine.database.query("update instances set snapshot = $2 where instance_id = $1", [
      once,
      onceSnapshot,
    ]);
    await engine.database.query("update instances set snapshot = $2 where instance_id = $1", [
      again,
      againSnapshot,
    ]);
    await until(
      "the idempotent decision is redriven",
      async () => (await statusOf(engine, again)) === "COMPLETED",
    );
    const { rows } = await engine.database.query<{ n: number }>(
      "select count(*)::int as n from inbox where state = 'pending'",
    );
    assert.equal(rows[0].n, 0);
    assert.equal(await statusOf(engine, once), "RUNNING");
  } finally {
    await engine.stop();
  }
});
