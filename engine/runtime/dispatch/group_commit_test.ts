import assert from "node:assert/strict";
import {
  eachDatabase,
  tier2Test,
  withServerDatabase,
} from "../../../tests/support/test_database.ts";
import { NO_EFFECTS } from "../../executor/effects.ts";
import { emptyState } from "../../executor/state.ts";
import { CommitInDoubtError, ENGINE_MIGRATIONS, migrate } from "../../persistence/mod.ts";
import type { StepCommit } from "../instances/repository.ts";
import { DuplicateDeliveryError } from "./dedup.ts";
import { GroupCommit } from "./group_commit.ts";

eachDatabase("concurrent commits share transactions and all become durable", async (db) => {
  await db.query("create table gc_rows (k int primary key)");
  let transactions = 0;
  const counting = {
    ...db,
    transaction: <T>(fn: Parameters<typeof db.transaction<T>>[0]) => {
      transactions++;
      return db.transaction(fn);
    },
  } as typeof db;
  const group = new GroupCommit(counting);
  await Promise.all(
    Array.from(
      { length: 40 },
      (_, k) =>
        group.commit({ work: (tx) => tx.query("insert into gc_rows (k) values ($1)", [k]) }),
    ),
  );
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from gc_rows");
  assert.equal(rows[0].n, 40);
  assert.ok(transactions < 40, `${transactions} transactions for 40 commits`);
});

eachDatabase("a failing member rejects alone; the rest of its group commits", async (db) => {
  await db.query("create table gc_keys (k int primary key)");
  await db.query("insert into gc_keys (k) values (7)");
  const group = new GroupCommit(db);
  const insert = (k: number) =>
    group.commit({ work: (tx) => tx.query("insert into gc_keys (k) values ($1)", [k]) });
  const thrown = new Error("refused by the member itself");
  const outcomes = await Promise.allSettled([
    insert(1),
    insert(7),
    group.commit({
      work: async (tx) => {
        await tx.query("insert into gc_keys (k) values (8)");
        throw thrown;
      },
    }),
    insert(2),
  ]);
  assert.deepEqual(outcomes.map((o) => o.status), [
    "fulfilled",
    "rejected",
    "rejected",
    "fulfilled",
  ]);
  assert.equal((outcomes[2] as PromiseRejectedResult).reason, thrown);
  const { rows } = await db.query<{ k: number }>("select k from gc_keys order by k");
  assert.deepEqual(rows.map((r) => r.k), [1, 2, 7]);
});

eachDatabase(
  "a shared commit in doubt fails every member and runs none of them again",
  async (db) => {
    await db.query("create table gc_doubt (k int primary key)");
    // The database answers every transaction as a commit whose outcome nobody could learn.
    const doubtful = {
      ...db,
      transaction: async <T>(fn: Parameters<typeof db.transaction<T>>[0]) => {
        await db.transaction(fn);
        throw new CommitInDoubtError("42");
      },
    } as typeof db;
    const group = new GroupCommit(doubtful);
    const runs = new Map<number, number>();
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((k) =>
        group.commit({
          work: (tx) => {
            runs.set(k, (runs.get(k) ?? 0) + 1);
            return tx.query("insert into gc_doubt (k) values ($1)", [k]);
          },
        })
      ),
    );
    for (const o of outcomes) {
      assert.equal(o.status, "rejected");
      assert.ok((o as PromiseRejectedResult).reason instanceof CommitInDoubtError);
    }
    assert.deepEqual([...runs.values()], [1, 1, 1], "no member ran twice");
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from gc_doubt");
    assert.equal(rows[0].n, 3, "what was in doubt had in fact committed, once");
  },
);

eachDatabase(
  "dedup keys recorded together: the member whose key a twin holds fails alone",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const group = new GroupCommit(db);
    const key = (eventId: string) => ({ tenant: "default", channel: "in", eventId });
    await group.commit({ delivered: { key: key("p=1"), instanceId: "first" } });
    const outcomes = await Promise.allSettled(
      ["p=2", "p=1", "p=3"].map((id, n) =>
        group.commit({ delivered: { key: key(id), instanceId: `i-${n}` } })
      ),
    );
    assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof DuplicateDeliveryError);
    const { rows } = await db.query<{ event_id: string; instance_id: string }>(
      "select event_id, instance_id from inbox order by event_id",
    );
    assert.deepEqual(rows.map((r) => `${r.event_id}:${r.instance_id}`), [
      "p=1:first",
      "p=2:i-0",
      "p=3:i-2",
    ]);
  },
);

eachDatabase(
  "a twin delivery that also meets the winner's unique alias is refused as a duplicate",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const group = new GroupCommit(db);
    const start = (instanceId: string): StepCommit => ({
      tenant: "default",
      instanceId,
      deploymentId: "d-1",
      processId: "p",
      state: { ...emptyState(instanceId, "p"), status: "WAITING" },
      snapshot: `gen=1\nid=${instanceId}\n`,
      effects: {
        ...NO_EFFECTS,
        aliasesRecorded: [{ name: "order", value: "o-1", unique: true, onConflict: "reject" }],
      },
      outbox: [],
      journal: false,
    });
    const delivered = (instanceId: string) => ({
      key: { tenant: "default", channel: "in", eventId: "o-1" },
      instanceId,
    });
    await group.commit({ step: start("winner"), delivered: delivered("winner") });
    const loser = await group.commit({ step: start("loser"), delivered: delivered("loser") })
      .then(() => undefined, (error) => error);
    assert.ok(loser instanceof DuplicateDeliveryError, `refused with ${loser}`);
    const { rows } = await db.query<{ instance_id: string }>("select instance_id from instances");
    assert.deepEqual(rows.map((r) => r.instance_id), ["winner"]);
  },
);

// PGlite is one connection, so only a server can hold two transactions open at once.
tier2Test(
  "a group of captures commits while a group of steps is in flight",
  () =>
    withServerDatabase(async (db) => {
      await migrate(db, ENGINE_MIGRATIONS);
      const group = new GroupCommit(db);
      const { promise: stepBegun, resolve: begin } = Promise.withResolvers<void>();
      const { promise: gate, resolve: open } = Promise.withResolvers<void>();
      const step = group.commit({
        work: async () => {
          begin();
          await gate;
        },
      });
      await stepBegun;
      const stored = await group.capture({
        tenant: "default",
        eventId: "@m-1",
        delivery: { channel: "in", body: new Uint8Array([1]), headers: {} },
      });
      assert.equal(stored, true, "the capture is durable before the step's group ends");
      const { rows } = await db.query<{ state: string }>(
        "select state from inbox where event_id = '@m-1'",
      );
      assert.deepEqual(rows.map((r) => r.state), ["pending"]);
      open();
      await step;
    }),
);
