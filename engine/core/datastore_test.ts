import assert from "node:assert/strict";
import {
  conflictError,
  DataStore,
  DATASTORE_CONFLICT,
  type DataStoreConnection,
  type DataStoreTransaction,
  isConflict,
  putField,
  type StoredRecord,
  UnitOfWork,
} from "./datastore.ts";

// A store in memory whose transactions copy-on-begin and publish on commit,
// with a log of what happened, so the unit-of-work rules can be observed.
class MemoryConnection implements DataStoreConnection {
  readonly description = "memory";
  readonly rows = new Map<string, StoredRecord>();
  /** Committed marks: redo id → at. */
  readonly marks = new Map<string, number>();
  readonly log: string[] = [];
  failCommit = false;

  constructor(readonly store: string) {}

  begin(): Promise<DataStoreTransaction> {
    const rows = new Map(this.rows);
    // One connection, no concurrency: a mark only has to see the committed ones and its own.
    const marks = new Map<string, number>();
    const log = (s: string) => this.log.push(`${this.store}:${s}`);
    log("begin");
    return Promise.resolve({
      get: (key) => Promise.resolve(rows.get(key)),
      put: (key, value, options = {}) => {
        const rev = rows.get(key)?.rev;
        if (options.expectRev !== undefined && rev !== options.expectRev) {
          return Promise.reject(conflictError(this.store, key, options.expectRev));
        }
        rows.set(key, { value, rev: (rev ?? 0) + 1 });
        return Promise.resolve((rev ?? 0) + 1);
      },
      delete: (key) => Promise.resolve(rows.delete(key)),
      mark: ({ redoId, at }) => {
        if (this.marks.has(redoId) || marks.has(redoId)) return Promise.resolve(false);
        marks.set(redoId, at);
        return Promise.resolve(true);
      },
      commit: () => {
        log("commit");
        if (this.failCommit) return Promise.reject(new Error(`${this.store} commit failed`));
        for (const [k, v] of rows) this.rows.set(k, v);
        for (const [k, v] of marks) this.marks.set(k, v);
        return Promise.resolve();
      },
      rollback: () => {
        log("rollback");
        return Promise.resolve();
      },
    });
  }

  purgeMarks(before: number): Promise<number> {
    const old = [...this.marks].filter(([, at]) => at < before);
    for (const [redoId] of old) this.marks.delete(redoId);
    return Promise.resolve(old.length);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("a store transaction commits on resolve and rolls back on throw", async () => {
  const conn = new MemoryConnection("s");
  const ds = new DataStore(conn);
  assert.equal(ds.name, "s");
  assert.equal(await ds.transaction((tx) => tx.put("k", 1)), 1);
  await assert.rejects(
    ds.transaction(async (tx) => {
      await tx.put("k", 2);
      throw new Error("no");
    }),
    /no/,
  );
  assert.deepEqual(await ds.get("k"), { value: 1, rev: 1 });
  assert.deepEqual(conn.log, [
    "s:begin",
    "s:commit",
    "s:begin",
    "s:rollback",
    "s:begin",
    "s:commit",
  ]);
});

Deno.test("putField merges into the stored map and keeps the revision check", async () => {
  const ds = new DataStore(new MemoryConnection("s"));
  await ds.put("k", { a: 1 });
  assert.equal(await ds.putField("k", { field: "b", value: 2, expectRev: 1 }), 2);
  assert.deepEqual((await ds.get("k"))?.value, { a: 1, b: 2 });
  const stale = await ds.transaction((tx) =>
    putField(tx, "k", { field: "c", value: 3, expectRev: 1 })
  ).catch((e) => e);
  assert.ok(isConflict(stale));
  assert.equal(stale.diagnostics[0].code, DATASTORE_CONFLICT);
  await ds.put("list", [1]);
  await ds.putField("list", { field: "x", value: true });
  assert.deepEqual((await ds.get("list"))?.value, { x: true });
});

Deno.test("a unit of work begins each store once and commits in first-touched order", async () => {
  const a = new MemoryConnection("a");
  const b = new MemoryConnection("b");
  const [sa, sb] = [new DataStore(a), new DataStore(b)];
  const uow = new UnitOfWork();
  await uow.on(sb).put("k", "B");
  await uow.on(sa).put("k", "A");
  await uow.on(sb).put("j", "B2");
  await uow.commit();
  assert.deepEqual([...a.log, ...b.log], ["a:begin", "a:commit", "b:begin", "b:commit"]);
  assert.deepEqual(b.rows.get("j"), { value: "B2", rev: 1 });
  await assert.rejects(() => uow.on(sa).get("k"), /already ended/);
  await assert.rejects(() => uow.commit(), /already ended/);
});

Deno.test("a failed commit rolls back every store not yet committed", async () => {
  const a = new MemoryConnection("a");
  const b = new MemoryConnection("b");
  const c = new MemoryConnection("c");
  b.failCommit = true;
  const uow = new UnitOfWork();
  for (const conn of [a, b, c]) await uow.on(new DataStore(conn)).put("k", 1);
  await assert.rejects(() => uow.commit(), /b commit failed/);
  assert.deepEqual([...a.log, ...b.log, ...c.log], [
    "a:begin",
    "a:commit",
    "b:begin",
    "b:commit",
    "b:rollback",
    "c:begin",
    "c:rollback",
  ]);
  assert.equal(c.rows.size, 0);
});

Deno.test("rolling back a unit of work discards every store's writes", async () => {
  const a = new MemoryConnection("a");
  const uow = new UnitOfWork();
  await uow.on(new DataStore(a)).put("k", 1);
  await uow.rollback();
  assert.deepEqual(a.log, ["a:begin", "a:rollback"]);
  assert.equal(a.rows.size, 0);
  // Nothing touched: nothing to end.
  await new UnitOfWork().commit();
});

Deno.test("a unit of work carries a store's mark into its transaction", async () => {
  const a = new MemoryConnection("a");
  const sa = new DataStore(a);
  const mark = { redoId: "r1", at: 100 };
  const first = new UnitOfWork();
  await first.on(sa).put("k", 1);
  assert.equal(await first.on(sa).mark(mark), true);
  await first.commit();
  const replay = new UnitOfWork();
  assert.equal(await replay.on(sa).mark(mark), false);
  await replay.rollback();
  assert.deepEqual([...a.marks], [["r1", 100]]);
  assert.equal(await a.purgeMarks(100), 0);
  assert.equal(await a.purgeMarks(101), 1);
  assert.equal(a.marks.size, 0);
});
