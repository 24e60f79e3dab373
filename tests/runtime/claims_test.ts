/**
 * The instance claim: a compare-and-set that another owner's live claim
 * refuses, the same (lane-scoped) owner may take again, and a stale claim
 * (older than the claim timeout) gives way to; a claim made through an
 * alias holds only while that alias still leads to the instance.
 */
import assert from "node:assert/strict";
import { ENGINE_MIGRATIONS, migrate } from "../../engine/persistence/mod.ts";
import { claimInstance, releaseClaim } from "../../engine/runtime/instances/repository.ts";
import { eachDatabase } from "../support/test_database.ts";

eachDatabase("a claim refuses other owners and is re-entrant for its own", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  await db.query(
    `insert into instances (instance_id, deployment_id, process_id, status, snapshot)
     values ('i-1', 'd', 'p', 'RUNNING', '\\x01'), ('i-2', 'd', 'p', 'COMPLETED', '\\x02')`,
  );
  const lane0 = { tenant: "default", instanceId: "i-1", owner: "r1/lane-0" };
  const lane1 = { ...lane0, owner: "r1/lane-1" };
  const claimed = await claimInstance(db, lane0);
  assert.equal(typeof claimed === "object" && claimed.deploymentId, "d");
  assert.equal(await claimInstance(db, lane1), "held");
  // The same lane coming back (its release never happened) gets it again.
  assert.equal(typeof await claimInstance(db, lane0), "object");
  await releaseClaim(db, lane0);
  assert.equal(typeof await claimInstance(db, lane1), "object");
  assert.equal(await claimInstance(db, { ...lane0, instanceId: "i-2" }), "not-active");
  assert.equal(await claimInstance(db, { ...lane0, instanceId: "i-3" }), "missing");
});

eachDatabase("a stale claim is taken over; a fresh one is not", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  await db.query(
    `insert into instances (instance_id, deployment_id, process_id, status, snapshot, owner, claimed_at)
     values ('old', 'd', 'p', 'RUNNING', '\\x01', 'dead/lane-0', now() - interval '10 minutes'),
            ('new', 'd', 'p', 'RUNNING', '\\x01', 'busy/lane-0', now())`,
  );
  const me = { tenant: "default", owner: "r2/lane-3" };
  const stale = { staleAfterMs: 300_000 };
  assert.equal(await claimInstance(db, { ...me, instanceId: "old" }), "held", "no timeout given");
  assert.equal(typeof await claimInstance(db, { ...me, instanceId: "old" }, stale), "object");
  assert.equal(await claimInstance(db, { ...me, instanceId: "new" }, stale), "held");
  const { rows } = await db.query<{ instance_id: string; owner: string }>(
    "select instance_id, owner from instances order by 1",
  );
  assert.deepEqual(rows, [
    { instance_id: "new", owner: "busy/lane-0" },
    { instance_id: "old", owner: "r2/lane-3" },
  ]);
});

eachDatabase(
  "a claim through an alias holds only while the alias leads to the instance",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await db.query(
      `insert into instances (instance_id, deployment_id, process_id, status, snapshot)
     values ('first', 'd', 'p', 'RUNNING', '\\x01'), ('second', 'd', 'p', 'RUNNING', '\\x02')`,
    );
    // Two holders of one non-unique value: the earlier one is the one correlation names.
    await db.query(
      `insert into aliases (name, value, instance_id, is_unique, created_at)
     values ('orderId', 'O-1', 'first', false, now() - interval '1 second'),
            ('orderId', 'O-1', 'second', false, now()),
            ('orderId', 'O-2', 'second', true, now() - interval '1 second')`,
    );
    const through = (value: string) => ({ name: "orderId", value });
    const key = { tenant: "default", owner: "r1/lane-0" };
    assert.equal(
      await claimInstance(db, { ...key, instanceId: "second", through: through("O-1") }),
      "moved",
    );
    assert.equal(
      typeof await claimInstance(db, { ...key, instanceId: "first", through: through("O-1") }),
      "object",
    );
    await db.query("update aliases set retired_at = now() where value = 'O-2'");
    assert.equal(
      await claimInstance(db, { ...key, instanceId: "second", through: through("O-2") }),
      "moved",
    );
    // Nothing was claimed by the refused attempts.
    const { rows } = await db.query<{ instance_id: string; owner: string | null }>(
      "select instance_id, owner from instances order by 1",
    );
    assert.deepEqual(rows, [
      { instance_id: "first", owner: "r1/lane-0" },
      { instance_id: "second", owner: null },
    ]);
  },
);
