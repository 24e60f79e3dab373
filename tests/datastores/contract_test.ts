import assert from "node:assert/strict";
import {
  type DataStore,
  DATASTORE_CONFLICT,
  isConflict,
  type StoreMark,
  UnitOfWork,
} from "../../engine/core/datastore.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { eachProvider, type StoreKit } from "./_providers.ts";

function codeOf(error: unknown): string | undefined {
  return error instanceof DiagnosticError ? error.diagnostics[0].code : undefined;
}

eachProvider("put, get and delete keep revisions", async (kit) => {
  const ds = await kit.open("ledger");
  assert.equal(await ds.get("a"), undefined);
  assert.equal(await ds.put("a", { balance: "10.50", frozen: false }), 1);
  assert.deepEqual(await ds.get("a"), { value: { balance: "10.50", frozen: false }, rev: 1 });
  assert.equal(await ds.put("a", { balance: "11" }), 2);
  assert.deepEqual(await ds.get("a"), { value: { balance: "11" }, rev: 2 });
  // Any JSON value is a valid key/value entry, not only a record.
  assert.equal(await ds.put("list", [1, "two", null]), 1);
  assert.deepEqual((await ds.get("list"))?.value, [1, "two", null]);
  assert.equal(await ds.delete("a"), true);
  assert.equal(await ds.delete("a"), false);
  assert.equal(await ds.get("a"), undefined);
  // A key written again after a delete starts over at revision 1.
  assert.equal(await ds.put("a", 5), 1);
});

eachProvider("stores on one table do not see each other's keys", async (kit) => {
  const left = await kit.open("left");
  const right = await kit.open("right");
  await left.put("k", "L");
  await right.put("k", "R");
  assert.deepEqual(await left.get("k"), { value: "L", rev: 1 });
  assert.deepEqual(await right.get("k"), { value: "R", rev: 1 });
});

eachProvider("a moved revision is a conflict and changes nothing", async (kit) => {
  const ds = await kit.open("ledger");
  await ds.put("a", { n: 1 });
  await ds.put("a", { n: 2 });
  assert.equal(await ds.put("a", { n: 3 }, { expectRev: 2 }), 3);
  const stale = await ds.put("a", { n: 99 }, { expectRev: 2 }).catch((e) => e);
  assert.equal(codeOf(stale), DATASTORE_CONFLICT);
  assert.ok(isConflict(stale));
  assert.match(stale.message, /'a' is no longer at revision 2/);
  const gone = await ds.put("missing", 1, { expectRev: 1 }).catch((e) => e);
  assert.equal(codeOf(gone), DATASTORE_CONFLICT);
  assert.equal(await ds.get("missing"), undefined);
  const del = await ds.delete("a", { expectRev: 1 }).catch((e) => e);
  assert.equal(codeOf(del), DATASTORE_CONFLICT);
  assert.deepEqual(await ds.get("a"), { value: { n: 3 }, rev: 3 });
  assert.equal(await ds.delete("a", { expectRev: 3 }), true);
});

eachProvider("a field write is a read-modify-write of the stored map", async (kit) => {
  const ds = await kit.open("ledger");
  assert.equal(await ds.putField("a", { field: "balance", value: "5" }), 1);
  assert.deepEqual(await ds.get("a"), { value: { balance: "5" }, rev: 1 });
  await ds.put("a", { balance: "5", frozen: false });
  assert.equal(await ds.putField("a", { field: "frozen", value: true, expectRev: 2 }), 3);
  assert.deepEqual((await ds.get("a"))?.value, { balance: "5", frozen: true });
  const stale = await ds.putField("a", { field: "x", value: 1, expectRev: 2 }).catch((e) => e);
  assert.equal(codeOf(stale), DATASTORE_CONFLICT);
  // A stored non-map is replaced by a map holding only the field.
  await ds.put("b", 7);
  await ds.putField("b", { field: "n", value: 8 });
  assert.deepEqual((await ds.get("b"))?.value, { n: 8 });
});

eachProvider("a failed transaction leaves every row as it was", async (kit) => {
  const from = await kit.open("from");
  const to = await kit.open("to");
  await from.put("acct", { balance: 100 });
  await to.put("acct", { balance: 0 });
  const failure = await from.transaction(async (tx) => {
    await tx.put("acct", { balance: 60 });
    await tx.put("new", { balance: 1 });
    throw new Error("between the writes");
  }).catch((e) => e);
  assert.equal(failure.message, "between the writes");
  assert.deepEqual(await from.get("acct"), { value: { balance: 100 }, rev: 1 });
  assert.equal(await from.get("new"), undefined);

  const uow = new UnitOfWork();
  await uow.on(from).put("acct", { balance: 60 });
  await uow.on(to).put("acct", { balance: 40 });
  await uow.rollback();
  assert.deepEqual(await from.get("acct"), { value: { balance: 100 }, rev: 1 });
  assert.deepEqual(await to.get("acct"), { value: { balance: 0 }, rev: 1 });

  const done = new UnitOfWork();
  await done.on(from).put("acct", { balance: 60 });
  await done.on(to).put("acct", { balance: 40 });
  await done.commit();
  assert.deepEqual(await from.get("acct"), { value: { balance: 60 }, rev: 2 });
  assert.deepEqual(await to.get("acct"), { value: { balance: 40 }, rev: 2 });
});

eachProvider("forUpdate serializes concurrent writers: no lost update", async (kit) => {
  const ds = await kit.open("counter");
  await ds.put("n", 0);
  const increments = 25;
  const worker = async () => {
    for (let i = 0; i < increments; i++) {
      const uow = new UnitOfWork();
      const ops = uow.on(ds);
      try {
        const current = await ops.get("n", { forUpdate: true });
        // Yield while holding the lock so the other worker really contends.
        await new Promise((r) => setTimeout(r, 1));
        await ops.put("n", (current!.value as number) + 1);
        await uow.commit();
      } catch (error) {
        await uow.rollback();
        throw error;
      }
    }
  };
  await Promise.all([worker(), worker()]);
  assert.deepEqual(await ds.get("n"), { value: 2 * increments, rev: 2 * increments + 1 });
});

eachProvider("migrations run in version order, again on every open", async (kit) => {
  const dir = await Deno.makeTempDir();
  try {
    const seeded = `${kit.table}_m`;
    kit.dropAfter(seeded);
    const folder = `${dir}/migrations/ledger`;
    await Deno.mkdir(folder, { recursive: true });
    // Each script needs the row the previous version inserted, so a lexical
    // order (V1, V10, V2) would leave 'seen' unset.
    await Deno.writeTextFile(
      `${folder}/V1__table.sql`,
      `CREATE TABLE IF NOT EXISTS ${seeded} (id INT PRIMARY KEY, note VARCHAR(20));\n` +
        `DELETE FROM ${seeded} WHERE id = 1;\n` +
        `INSERT INTO ${seeded} (id, note) VALUES (1, '"first"');\n`,
    );
    await Deno.writeTextFile(
      `${folder}/V2__second.sql`,
      `INSERT INTO ${seeded} (id, note) SELECT 2, '"second"' FROM ${seeded} WHERE id = 1 ` +
        `AND NOT EXISTS (SELECT 1 FROM ${seeded} WHERE id = 2);\n`,
    );
    await Deno.writeTextFile(
      `${folder}/V10__tenth.sql`,
      `INSERT INTO ${seeded} (id, note) SELECT 10, '"tenth"' FROM ${seeded} WHERE id = 2 ` +
        `AND NOT EXISTS (SELECT 1 FROM ${seeded} WHERE id = 10);\n` +
        `DELETE FROM ${kit.table} WHERE store_name = 'ledger' AND store_key = 'seen';\n` +
        `INSERT INTO ${kit.table} (store_name, store_key, value) ` +
        `SELECT 'ledger', 'seen', note FROM ${seeded} WHERE id = 10;\n`,
    );
    await Deno.writeTextFile(`${folder}/notes.txt`, "not a script, ignored");
    const options = { settings: { migrations: "migrations/ledger" }, baseDir: dir };
    const first = await kit.open("ledger", options);
    assert.deepEqual(await first.get("seen"), { value: "tenth", rev: 1 });
    await first.put("seen", "overwritten");
    await first.close();
    const second = await kit.open("ledger", options);
    assert.deepEqual(await second.get("seen"), { value: "tenth", rev: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The marks table is shared by every store on a database, so each mark test
// works on store names of its own (and forgets their marks at the end).
function markStores(kit: StoreKit, ...names: string[]): string[] {
  return names.map((n) => `${n}_${kit.table}`);
}

function freshMark(at = Date.now()): StoreMark {
  return { redoId: crypto.randomUUID(), at };
}

async function forgetMarks(...stores: DataStore[]): Promise<void> {
  for (const ds of stores) await ds.connection.purgeMarks(Number.MAX_SAFE_INTEGER);
}

// How `promise` stands after `ms`: still pending, or settled. Clears its timer either way.
async function stateAfter(promise: Promise<unknown>, ms: number): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<string>((r) => timer = setTimeout(() => r("pending"), ms));
  try {
    return await Promise.race([promise.then(() => "resolved", () => "rejected"), waited]);
  } finally {
    clearTimeout(timer);
  }
}

/** Marks `mark` in a transaction of its own and ends it as `end` says; resolves to the mark's answer. */
async function markAndEnd(
  ds: DataStore,
  mark: StoreMark,
  end: "commit" | "rollback",
): Promise<boolean> {
  const tx = await ds.connection.begin();
  let marked: boolean;
  try {
    marked = await tx.mark(mark);
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  // After false a transaction can only be rolled back.
  if (end === "commit" && marked) await tx.commit();
  else await tx.rollback();
  return marked;
}

eachProvider("a committed mark is found by the next one, per store", async (kit) => {
  const [ledgerName, auditName] = markStores(kit, "ledger", "audit");
  const ledger = await kit.open(ledgerName);
  const audit = await kit.open(auditName);
  try {
    const mark = freshMark();
    const tx = await ledger.connection.begin();
    assert.equal(await tx.mark(mark), true);
    await tx.put("a", { n: 1 });
    await tx.commit();
    assert.equal(await markAndEnd(ledger, mark, "commit"), false);
    // The same redo id on another store is a mark of its own.
    assert.equal(await markAndEnd(audit, mark, "commit"), true);
    assert.equal(await markAndEnd(audit, mark, "commit"), false);
    assert.equal(await markAndEnd(ledger, freshMark(mark.at), "commit"), true);
    assert.deepEqual(await ledger.get("a"), { value: { n: 1 }, rev: 1 });
  } finally {
    await forgetMarks(ledger, audit);
  }
});

eachProvider("a mark rolled back with its writes is not recorded", async (kit) => {
  const [name] = markStores(kit, "ledger");
  const ledger = await kit.open(name);
  try {
    await ledger.put("a", { n: 1 });
    const mark = freshMark();
    const tx = await ledger.connection.begin();
    assert.equal(await tx.mark(mark), true);
    await tx.put("a", { n: 2 });
    await tx.put("b", { n: 1 });
    await tx.rollback();
    assert.deepEqual(await ledger.get("a"), { value: { n: 1 }, rev: 1 });
    assert.equal(await ledger.get("b"), undefined);
    assert.equal(await markAndEnd(ledger, mark, "commit"), true);
    assert.equal(await markAndEnd(ledger, mark, "commit"), false);
  } finally {
    await forgetMarks(ledger);
  }
});

eachProvider(
  "a mark held by an open transaction waits for its end",
  async (kit) => {
    const [name] = markStores(kit, "ledger");
    const ledger = await kit.open(name);
    try {
      for (const end of ["commit", "rollback"] as const) {
        const mark = freshMark();
        const first = await ledger.connection.begin();
        assert.equal(await first.mark(mark), true);
        await first.put(end, "first");
        const second = await ledger.connection.begin();
        try {
          const marked = second.mark(mark);
          assert.equal(
            await stateAfter(marked, 300),
            "pending",
            `while the first is open (${end})`,
          );
          await (end === "commit" ? first.commit() : first.rollback());
          // Committed: the writes are in, so the second finds the mark; rolled back: it records it.
          assert.equal(await marked, end === "rollback", `after the first's ${end}`);
        } finally {
          await second.rollback();
        }
      }
      assert.deepEqual(await ledger.get("commit"), { value: "first", rev: 1 });
      assert.equal(await ledger.get("rollback"), undefined);
    } finally {
      await forgetMarks(ledger);
    }
  },
  { serversOnly: true },
);

eachProvider("purging marks forgets only this store's older ones", async (kit) => {
  const [ledgerName, auditName] = markStores(kit, "ledger", "audit");
  const ledger = await kit.open(ledgerName);
  const audit = await kit.open(auditName);
  try {
    const marks = [100, 200, 300].map((at) => freshMark(at));
    for (const m of marks) assert.equal(await markAndEnd(ledger, m, "commit"), true);
    assert.equal(await markAndEnd(audit, marks[0], "commit"), true);
    assert.equal(await ledger.connection.purgeMarks(100), 0);
    // `before` itself is kept: only marks strictly older go.
    assert.equal(await ledger.connection.purgeMarks(300), 2);
    assert.equal(await ledger.connection.purgeMarks(300), 0);
    assert.equal(await markAndEnd(ledger, marks[0], "rollback"), true);
    assert.equal(await markAndEnd(ledger, marks[2], "rollback"), false);
    assert.equal(await markAndEnd(audit, marks[0], "rollback"), false);
    assert.equal(await audit.connection.purgeMarks(Number.MAX_SAFE_INTEGER), 1);
  } finally {
    await forgetMarks(ledger, audit);
  }
});

eachProvider("a projected store records and purges marks the same way", async (kit) => {
  const table = `p_${kit.table}`;
  kit.dropAfter(table);
  const mysql = kit.url.startsWith("mysql:") || kit.url.startsWith("mariadb:");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/migrations`);
    await Deno.writeTextFile(
      `${dir}/migrations/V1__notes.sql`,
      `CREATE TABLE IF NOT EXISTS ${table} (
  store_key  VARCHAR(512) NOT NULL PRIMARY KEY,
  note       VARCHAR(140),
  rev        BIGINT       NOT NULL DEFAULT 1,
  updated_at ${mysql ? "TIMESTAMP(6)" : "TIMESTAMPTZ"} NOT NULL DEFAULT CURRENT_TIMESTAMP${
        mysql ? "(6)" : ""
      }
);`,
    );
    const [name] = markStores(kit, "notes");
    const notes = await kit.open(name, {
      settings: { migrations: "migrations" },
      baseDir: dir,
      projection: {
        table,
        type: "Note",
        columns: [{ field: "note", column: "note", type: "string", optional: true }],
      },
    });
    try {
      const mark = freshMark(500);
      const rolledBack = await notes.connection.begin();
      assert.equal(await rolledBack.mark(mark), true);
      await rolledBack.put("n", { note: "lost" });
      await rolledBack.rollback();
      assert.equal(await notes.get("n"), undefined);
      const tx = await notes.connection.begin();
      assert.equal(await tx.mark(mark), true);
      await tx.put("n", { note: "kept" });
      await tx.commit();
      assert.equal(await markAndEnd(notes, mark, "commit"), false);
      assert.deepEqual(await notes.get("n"), { value: { note: "kept" }, rev: 1 });
      assert.equal(await notes.connection.purgeMarks(501), 1);
      assert.equal(await markAndEnd(notes, mark, "rollback"), true);
    } finally {
      await forgetMarks(notes);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
