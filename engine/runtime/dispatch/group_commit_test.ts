import assert from "node:assert/strict";
import { eachDatabase } from "../../../tests/support/test_database.ts";
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
      (_, k) => group.commit((tx) => tx.query("insert into gc_rows (k) values ($1)", [k])),
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
    group.commit((tx) => tx.query("insert into gc_keys (k) values ($1)", [k]));
  const thrown = new Error("refused by the member itself");
  const outcomes = await Promise.allSettled([
    insert(1),
    insert(7),
    group.commit(async (tx) => {
      await tx.query("insert into gc_keys (k) values (8)");
      throw thrown;
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
