/**
 * Restart durability: an instance parked by one engine is resumed by the
 * next one on the same database, and every variable comes back with its
 * own type (numbers, booleans, lists, dates, null). An on-persist message
 * acknowledged with 202 but not yet run when the engine stops is run by the
 * next one.
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, type BootOptions, get, post, sealDir } from "./support.ts";

const FIXTURE = "tests/fixtures/runtime/typed_hold";

async function parkStopResume(target: BootOptions): Promise<void> {
  const first = await bootEngine(target);
  let id: string;
  try {
    await first.deployments.deploy(await sealDir(FIXTURE));
    const parked = await post(first, "/channels/typed-request", {
      ref: "R-1",
      amount: 1250.75,
      approved: true,
      tags: ["a", "b"],
      due: "2026-05-01",
    });
    assert.equal(parked.status, 200, JSON.stringify(parked.body));
    id = (parked.body.instances as { instanceId: string }[])[0].instanceId;
  } finally {
    await first.stop();
  }

  const second = await bootEngine(target);
  try {
    const resumed = await post(second, "/channels/typed-decision", { ref: "R-1" });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.deepEqual(resumed.body.instances, [{ instanceId: id, status: "COMPLETED" }]);
    const inspected = await get(second, `/admin/instances/${id}`);
    const variables = inspected.body.variables as Record<string, string>;
    assert.equal(variables.typed, "true", JSON.stringify(variables));
    assert.equal(variables.due, 'date("2026-05-01")');
  } finally {
    await second.stop();
  }
}

Deno.test("a parked instance resumes after a restart with typed variables [pglite]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-restart-" });
  try {
    await parkStopResume({ url: `file://${dir}` });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

tier2Test(
  "a parked instance resumes after a restart with typed variables [postgres]",
  () => withServerDatabase((_db, target) => parkStopResume(target)),
);

Deno.test("on-persist answers 202 once captured and the instance runs afterwards", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir(FIXTURE));
    const captured = await post(engine, "/channels/typed-async", { ref: "A-1" });
    assert.equal(captured.status, 202, JSON.stringify(captured.body));
    assert.equal(typeof captured.body.receiptId, "string");
    let instance: { instance_id: string; status: string } | undefined;
    for (let i = 0; i < 100 && !instance; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const { rows } = await engine.database.query<{ instance_id: string; status: string }>(
        "select i.instance_id, i.status from inbox b join instances i on i.instance_id = b.instance_id where b.event_id = $1 and b.state = 'done'",
        [captured.body.receiptId],
      );
      instance = rows[0];
    }
    assert.ok(instance, "the captured message never ran");
    assert.equal(instance.status, "RUNNING");
    const resumed = await post(engine, "/channels/typed-decision", { asyncRef: "A-1" });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.deepEqual(resumed.body.instances, [{
      instanceId: instance.instance_id,
      status: "COMPLETED",
    }]);
  } finally {
    await engine.stop();
  }
});

Deno.test("a capture left pending by a stopped engine is run by the next one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-redrive-" });
  try {
    const first = await bootEngine({ url: `file://${dir}` });
    try {
      await first.deployments.deploy(await sealDir(FIXTURE));
      // What a crash between the 202 and the run leaves behind: a pending capture.
      await first.database.query(
        `insert into inbox (tenant, channel, event_id, state, body, content_type, headers, received_at)
         values ('test', 'typed-async', 'orphan-1', 'pending', $1, 'application/json', '{}',
                 now() - interval '1 hour')`,
        [new TextEncoder().encode(JSON.stringify({ ref: "A-9" }))],
      );
    } finally {
      await first.stop();
    }
    const second = await bootEngine({ url: `file://${dir}` });
    try {
      let state: string | undefined;
      for (let i = 0; i < 100 && state !== "done"; i++) {
        await new Promise((r) => setTimeout(r, 20));
        const { rows } = await second.database.query<{ state: string }>(
          "select state from inbox where event_id = 'orphan-1'",
        );
        state = rows[0]?.state;
      }
      assert.equal(state, "done");
      const found = await get(second, "/admin/instances/by-alias/asyncRef/A-9");
      assert.equal(found.status, 200, JSON.stringify(found.body));
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a redelivered message with the same dedupKey is answered with the first instance", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir(FIXTURE));
    const message = {
      ref: "D-1",
      msgId: "m-1",
      amount: 1,
      approved: true,
      tags: [],
      due: "2026-01-01",
    };
    const first = await post(engine, "/channels/typed-request", message);
    const again = await post(engine, "/channels/typed-request", message);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const ids = [first, again].map((a) =>
      (a.body.instances as { instanceId: string }[])[0].instanceId
    );
    assert.equal(ids[0], ids[1]);
    const { rows } = await engine.database.query<{ n: number }>(
      "select count(*)::int as n from instances",
    );
    assert.equal(rows[0].n, 1);
  } finally {
    await engine.stop();
  }
});

Deno.test("an embedded engine releases at boot the claims an earlier run died holding", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-restart-" });
  try {
    const first = await bootEngine({ url: `file://${dir}` });
    let id: string;
    try {
      await first.deployments.deploy(await sealDir(FIXTURE));
      const parked = await post(first, "/channels/typed-request", { ref: "R-9", amount: 1 });
      id = (parked.body.instances as { instanceId: string }[])[0].instanceId;
      // As a run killed mid-step leaves it: claimed, by an owner that is gone.
      await first.database.query(
        "update instances set owner = 'gone/lane-3', claimed_at = now() where instance_id = $1",
        [id],
      );
    } finally {
      await first.stop();
    }
    const second = await bootEngine({ url: `file://${dir}` });
    try {
      // No waiting out the claim timeout (five minutes by default).
      const resumed = await post(second, "/channels/typed-decision", { ref: "R-9" });
      assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
      assert.deepEqual(resumed.body.instances, [{ instanceId: id, status: "COMPLETED" }]);
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
