/**
 * A coverage store declared on the engine database itself: it is served
 * over the engine's own handle, its tables sit in the engine's database
 * (its schema on a server), and a write can run inside a transaction the
 * engine holds — committed with it, or rolled back with it. A store on any
 * other database offers no such statements.
 */
import assert from "node:assert/strict";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { type Database, openDatabase } from "../../engine/persistence/mod.ts";
import {
  type CoverageStore,
  coverageStoreProviders,
  type CoverageWrite,
} from "../../engine/runtime/coverage/mod.ts";
import "../../io/datastores/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { freshDeploymentId } from "./_support.ts";

function openOn(url: string, engineDatabase: Database): Promise<CoverageStore> {
  return coverageStoreProviders.get("sql")!.open(
    { name: "coverage", type: "sql", settings: { "url-ref": url } },
    { resolve: defaultResolveContext({}), engineDatabase },
  );
}

const ROLLBACK = new Error("rolled back on purpose");

/** Runs `write` in an engine transaction that commits, or rolls back when `commit` is false. */
async function inEngine(
  db: Database,
  store: CoverageStore,
  deploymentId: string,
  write: CoverageWrite,
  commit: boolean,
): Promise<string[]> {
  const statements = store.inTransaction?.(deploymentId, write);
  assert.ok(statements, "a store on the engine database writes in the engine's transactions");
  let newly: string[] = [];
  await db.transaction(async (tx) => {
    newly = await statements(tx);
    if (!commit) throw ROLLBACK;
  }).catch((error) => {
    if (error !== ROLLBACK) throw error;
  });
  return newly;
}

async function ridesEngineTransactions(db: Database, storeUrl: string): Promise<void> {
  const store = await openOn(storeUrl, db);
  try {
    const id = freshDeploymentId();
    await store.seed(id, ["accept", "reject"]);
    // A step whose commit rolls back leaves no mark behind.
    assert.deepEqual(await inEngine(db, store, id, { marks: ["accept"] }, false), ["accept"]);
    assert.equal((await store.counts(id)).covered, 0);
    assert.deepEqual(await inEngine(db, store, id, { marks: ["accept"] }, true), ["accept"]);
    assert.deepEqual(await store.counts(id), { total: 2, covered: 1, uncovered: ["reject"] });
    // The mark is a row of the engine database, written by that transaction.
    const { rows } = await db.query<{ covered: boolean }>(
      "select covered from coverage_metric where deployment_id = $1 and route_id = 'accept'",
      [id],
    );
    assert.deepEqual(rows, [{ covered: true }]);
    const fragment = {
      routeId: "urn:sutra:coverage:e2e:accepted",
      processId: "intake",
      instanceId: "i-1",
      correlations: ["caseId=C-1"],
    };
    await inEngine(db, store, id, { fragments: [fragment] }, true);
    assert.equal((await store.fragments(id)).length, 1);
    // A value too wide for its column would abort the engine's transaction: it stays out of it.
    const wide = { ...fragment, correlations: [`caseId=${"x".repeat(300)}`] };
    assert.equal(store.inTransaction!(id, { fragments: [wide] }), undefined);
  } finally {
    await store.close();
  }
  // Closing the store leaves the engine's database open.
  assert.equal((await db.query("select 1 as one")).rows.length, 1);
}

Deno.test("coverage store on the engine's embedded directory rides its transactions", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-coverage-engine-" });
  const db = await openDatabase(`file://${dir}`);
  try {
    await ridesEngineTransactions(db, `pglite:${dir}`);
    // The engine's own spelling of its directory names it too.
    await ridesEngineTransactions(db, `file://${dir}`);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

tier2Test(
  "coverage store on the engine's server database rides its transactions",
  () =>
    withServerDatabase(async (db, target) => {
      await ridesEngineTransactions(db, target.url);
      // The tables went to the engine's schema, beside the engine's own.
      const { rows } = await db.query(
        "select 1 from information_schema.tables where table_schema = $1 and table_name = $2",
        [target.schema, "coverage_metric"],
      );
      assert.equal(rows.length, 1);
    }),
);

Deno.test("coverage store on another database offers no engine-transaction statements", async () => {
  const db = await openDatabase("memory://");
  // An in-memory store is a database of its own, even beside an in-memory engine.
  const store = await openOn("pglite:memory://", db);
  try {
    assert.equal(store.inTransaction, undefined);
  } finally {
    await store.close();
    await db.close();
  }
});
