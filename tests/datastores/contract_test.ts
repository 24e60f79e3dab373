import assert from "node:assert/strict";
import { DATASTORE_CONFLICT, isConflict, UnitOfWork } from "../../engine/core/datastore.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { eachProvider } from "./_providers.ts";

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
