/**
 * Signals across instances (BPMN 2.0.2 §10.5.1): a signal thrown by one
 * instance reaches every other instance of the tenant waiting for it, and
 * starts the processes whose start event catches it — once per throw, on
 * PGlite and on the tier-2 server.
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, type BootOptions, post, sealDir } from "./support.ts";
import { pollUntil } from "./timers_support.ts";

async function broadcast(target: BootOptions): Promise<void> {
  const engine = await bootEngine(target);
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/signals"));
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) {
      const parked = await post(engine, "/channels/sig-wait", {});
      assert.equal(parked.status, 200, JSON.stringify(parked.body));
      ids.push((parked.body.instances as { instanceId: string }[])[0].instanceId);
    }
    const statusOf = async (process: string) =>
      (await engine.database.query<{ status: string }>(
        "select status from instances where process_id = $1 order by instance_id",
        [process],
      )).rows.map((r) => r.status);
    assert.deepEqual(await statusOf("catcher"), ["RUNNING", "RUNNING"]);

    const thrown = await post(engine, "/channels/sig-throw", {});
    assert.equal(thrown.status, 200, JSON.stringify(thrown.body));
    assert.ok(
      await pollUntil(async () =>
        (await statusOf("catcher")).join() === "COMPLETED,COMPLETED" &&
        (await statusOf("started")).length === 1
      ),
      `after the throw: catchers ${await statusOf("catcher")}, started ${await statusOf(
        "started",
      )}`,
    );
    // The row goes once the sink has stepped every receiver: a moment after they completed.
    const outboxRows = async () =>
      (await engine.database.query<{ n: number }>("select count(*)::int as n from outbox"))
        .rows[0].n;
    assert.ok(
      await pollUntil(async () => await outboxRows() === 0),
      "the broadcast row is gone once delivered",
    );
    // A second throw starts a second instance; the completed catchers are not reached again.
    await post(engine, "/channels/sig-throw", {});
    assert.ok(await pollUntil(async () => (await statusOf("started")).length === 2));
    assert.deepEqual(await statusOf("catcher"), ["COMPLETED", "COMPLETED"]);
  } finally {
    await engine.stop();
  }
}

Deno.test("a signal reaches every other waiting instance and starts its start-event processes [pglite]", () =>
  broadcast({}));

tier2Test(
  "a signal reaches every other waiting instance and starts its start-event processes [postgres]",
  () => withServerDatabase((_db, target) => broadcast(target)),
);
