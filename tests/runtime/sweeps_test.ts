/**
 * Leases and the sweeps: one holder per role until it lapses, stuck claims
 * released by age, terminal instances purged after retention while FAILED
 * ones stay, each sweep on its own interval.
 */
import assert from "node:assert/strict";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../engine/persistence/mod.ts";
import { releaseLease, tryLease } from "../../engine/runtime/leases.ts";
import { purgeExpired, releaseStuckClaims, Sweeper } from "../../engine/runtime/sweeps/mod.ts";
import { createLogger } from "../../engine/core/mod.ts";
import { eachDatabase } from "../support/test_database.ts";
import type { Capture } from "../../engine/runtime/dispatch/inbox.ts";

eachDatabase(
  "leases: one holder per role; renewal keeps it, expiry or release hands it on",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    assert.equal(await tryLease(db, { role: "sweeps", owner: "a" }), true);
    assert.equal(await tryLease(db, { role: "sweeps", owner: "b" }), false);
    assert.equal(await tryLease(db, { role: "sweeps", owner: "a" }), true);
    assert.equal(await tryLease(db, { role: "retention", owner: "b" }), true);
    await db.query(
      "update leases set expires_at = now() - interval '1 second' where role = 'sweeps'",
    );
    assert.equal(await tryLease(db, { role: "sweeps", owner: "b" }), true);
    await releaseLease(db, { role: "sweeps", owner: "b" });
    assert.equal(await tryLease(db, { role: "sweeps", owner: "a" }), true);
  },
);

async function instance(
  db: Database,
  id: string,
  status: string,
  extra: { owner?: string; claimedAgo?: string; endedAgo?: string } = {},
): Promise<void> {
  await db.query(
    `insert into instances (instance_id, deployment_id, process_id, status, snapshot, owner,
       claimed_at, ended_at)
     values ($1, 'd', 'p', $2, '\\x00', $3,
       case when $4::text is null then null else now() - $4::interval end,
       case when $5::text is null then null else now() - $5::interval end)`,
    [id, status, extra.owner ?? null, extra.claimedAgo ?? null, extra.endedAgo ?? null],
  );
  await db.query(
    "insert into audit_events (instance_id, seq, event_type, at) values ($1, 1, 'instance.started', now())",
    [id],
  );
}

eachDatabase(
  "sweeps: stuck claims are released by age; retention purges ended instances",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await instance(db, "stuck", "RUNNING", { owner: "dead/lane-0", claimedAgo: "10 minutes" });
    await instance(db, "busy", "RUNNING", { owner: "live/lane-1", claimedAgo: "1 second" });
    await instance(db, "old-done", "COMPLETED", { endedAgo: "8 days" });
    await instance(db, "new-done", "COMPLETED", { endedAgo: "1 day" });
    await instance(db, "old-failed", "FAILED", { endedAgo: "30 days" });

    assert.equal(await releaseStuckClaims(db, 300_000), 1);
    const { rows: owners } = await db.query<{ instance_id: string; owner: string | null }>(
      "select instance_id, owner from instances where instance_id in ('stuck', 'busy') order by 1",
    );
    assert.deepEqual(owners, [
      { instance_id: "busy", owner: "live/lane-1" },
      { instance_id: "stuck", owner: null },
    ]);

    assert.equal(await purgeExpired(db, 7 * 86_400_000), 1);
    const { rows: left } = await db.query<{ instance_id: string }>(
      "select instance_id from instances order by 1",
    );
    assert.deepEqual(left.map((r) => r.instance_id), ["busy", "new-done", "old-failed", "stuck"]);
    const { rows: history } = await db.query<{ n: number }>(
      "select count(*)::int as n from audit_events where instance_id = 'old-done'",
    );
    assert.equal(history[0].n, 0);
  },
);

/** A sweeper for replica `owner`: claims stuck after 5 min, a day's retention, default cadences. */
function sweeperOn(
  db: Database,
  owner: string,
  redrive: (capture: Capture) => Promise<void> = () => Promise.resolve(),
): Sweeper {
  return new Sweeper({
    db,
    logger: createLogger("sweeps", { filter: "error", write: () => {} }),
    owner,
    redrive,
    claimTimeoutMs: 300_000,
    retentionMs: 86_400_000,
    orphanAfterMs: 30_000,
    intervalMs: 10_000,
    claimSweepMs: 60_000,
    retentionSweepMs: 3_600_000,
  });
}

eachDatabase(
  "the sweeper runs the claim and retention sweeps on their own intervals, the first tick at once",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const sweeper = sweeperOn(db, "r1");
    const left = async () =>
      (await db.query<{ instance_id: string; owner: string | null }>(
        "select instance_id, owner from instances order by 1",
      )).rows;
    await instance(db, "stuck-1", "RUNNING", { owner: "dead/lane-0", claimedAgo: "10 minutes" });
    await instance(db, "done-1", "COMPLETED", { endedAgo: "2 days" });
    await sweeper.sweepOnce();
    assert.deepEqual(await left(), [{ instance_id: "stuck-1", owner: null }]);

    // The next tick comes before either interval has passed: both sweeps wait.
    await instance(db, "stuck-2", "RUNNING", { owner: "dead/lane-0", claimedAgo: "10 minutes" });
    await instance(db, "done-2", "COMPLETED", { endedAgo: "2 days" });
    await sweeper.sweepOnce();
    assert.deepEqual(await left(), [
      { instance_id: "done-2", owner: null },
      { instance_id: "stuck-1", owner: null },
      { instance_id: "stuck-2", owner: "dead/lane-0" },
    ]);
    await sweeper.stop();
  },
);

eachDatabase("the replica holding the sweep leases keeps them between its sweeps", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  const [first, second] = [sweeperOn(db, "r1"), sweeperOn(db, "r2")];
  await first.sweepOnce();
  // The leases lapse, but the holder's next tick (no sweep due) renews them before anyone else's.
  await db.query("update leases set expires_at = now() - interval '1 second'");
  await first.sweepOnce();
  await second.sweepOnce();
  const { rows } = await db.query<{ role: string; owner: string }>(
    "select role, owner from leases order by role",
  );
  assert.deepEqual(rows, [{ role: "retention", owner: "r1" }, { role: "sweeps", owner: "r1" }]);
  await instance(db, "stuck-3", "RUNNING", { owner: "dead/lane-0", claimedAgo: "10 minutes" });
  await second.sweepOnce();
  const { rows: claims } = await db.query<{ owner: string | null }>(
    "select owner from instances where instance_id = 'stuck-3'",
  );
  assert.deepEqual(claims, [{ owner: "dead/lane-0" }], "the standby replica swept nothing");
  await first.stop();
  await second.stop();
});

eachDatabase(
  "a backlog of orphaned captures is run batch after batch, not one batch per interval",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await db.query(
      `insert into inbox (channel, event_id, state, body, headers, received_at)
       select 'in', 'm-' || n, 'pending', '\\x7b7d', '{}', now() - interval '1 hour'
         from generate_series(1, 150) as n`,
    );
    const redriven: string[] = [];
    const sweeper = sweeperOn(db, "r1", (capture) => {
      redriven.push(capture.eventId);
      return Promise.resolve();
    });
    assert.equal(await sweeper.sweepOnce(), true, "a full batch asks for the next tick at once");
    assert.equal(redriven.length, 100);
    assert.equal(await sweeper.sweepOnce(), false);
    assert.equal(new Set(redriven).size, 150);
    await sweeper.stop();
  },
);
