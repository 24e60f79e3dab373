/**
 * Row-level security on a PostgreSQL server (tier 2): migrated by a
 * separate table-owning role, the engine's own role sees only the rows of
 * the tenant its transaction is scoped to, even through a query that asks
 * for another tenant's, and cannot write another tenant's rows; the engine
 * refuses to run as a superuser, a BYPASSRLS role or the tables' owner.
 * On the embedded database the migration applies and changes nothing.
 */
import assert from "node:assert/strict";
import { configKeys, createLogger, DiagnosticError, loadConfig } from "../../engine/core/mod.ts";
import { type Database, openDatabase, SqlError } from "../../engine/persistence/mod.ts";
import {
  enforcesRowSecurity,
  EVERY_TENANT,
  prepareEngineDatabase,
  scopeToTenant,
} from "../../engine/runtime/tenancy/mod.ts";
import { serverDatabaseUrl, tier2Test, withMemoryDatabase } from "../support/test_database.ts";
import { as, prepare, withRoles } from "./tenancy_support.ts";

const logger = createLogger("test", { filter: "error", write: () => {} });

async function withRuntime(url: string, fn: (db: Database) => Promise<void>, schema?: string) {
  const db = await openDatabase(url, { maxConnections: 2, ...(schema ? { schema } : {}) });
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

const insertInstance = `insert into instances
  (tenant, instance_id, deployment_id, process_id, status, snapshot)
  values ($1, $2, 'd', 'p', 'RUNNING', '\\x00')`;

tier2Test(
  "a transaction scoped to one tenant reads and writes only its rows",
  () =>
    withRoles((roles) =>
      withRuntime(as(roles.app), async (db) => {
        await prepare(db, roles);
        // Confined, so the engine narrows each tenant's step writes to that tenant.
        assert.equal(enforcesRowSecurity(db), true);
        await db.transaction(async (tx) => {
          await scopeToTenant(tx, EVERY_TENANT);
          await tx.query(insertInstance, ["acme", "i-acme"]);
          await tx.query(insertInstance, ["globex", "i-globex"]);
        });
        const seen = await db.transaction(async (tx) => {
          await scopeToTenant(tx, "acme");
          // The deliberately wrong query: another tenant's rows, and no tenant predicate at all.
          const wrong = await tx.query("select instance_id from instances where tenant = 'globex'");
          const all = await tx.query<{ instance_id: string }>("select instance_id from instances");
          const changed = await tx.query(
            "update instances set status = 'FAILED' where tenant = 'globex'",
          );
          const [wrongRows, allIds] = [wrong.rows.length, all.rows.map((r) => r.instance_id)];
          return { wrong: wrongRows, all: allIds, changed: changed.rowCount };
        });
        assert.deepEqual(seen, { wrong: 0, all: ["i-acme"], changed: 0 });
        await assert.rejects(
          db.transaction(async (tx) => {
            await scopeToTenant(tx, "acme");
            await tx.query(insertInstance, ["globex", "i-smuggled"]);
          }),
          (e) => e instanceof SqlError && e.code === "42501",
        );
        // With the setting empty (a client that names no tenant) a statement sees nothing.
        const unnamed = await db.transaction(async (tx) => {
          await scopeToTenant(tx, "");
          return (await tx.query("select 1 from instances")).rows.length;
        });
        assert.equal(unnamed, 0);
        const globex = await db.transaction(async (tx) => {
          await scopeToTenant(tx, EVERY_TENANT);
          return (await tx.query<{ status: string }>(
            "select status from instances where instance_id = 'i-globex'",
          )).rows[0].status;
        });
        assert.equal(globex, "RUNNING");
      })
    ),
);

tier2Test(
  "the engine refuses a role that row-level security would not confine",
  () =>
    withRoles(async (roles) => {
      await withRuntime(as(roles.app), (db) => prepare(db, roles));
      const cases: [string, string | undefined, string][] = [
        [serverDatabaseUrl()!, roles.app, "superuser"],
        [as(roles.bypass), undefined, "bypassrls"],
        [as(roles.owner), roles.app, "ownsTables"],
      ];
      for (const [url, schema, attribute] of cases) {
        await withRuntime(url, async (db) => {
          const error = await prepare(db, roles).then(() => undefined, (e) => e);
          assert.ok(error instanceof DiagnosticError, `${attribute}: ${error}`);
          const [refusal] = error.diagnostics;
          assert.equal(refusal.code, "SUTRA.DB.ROLE_BYPASSES_RLS");
          assert.equal(refusal.attributes?.[attribute], true, JSON.stringify(refusal));
        }, schema);
      }
    }),
);

Deno.test("on the embedded database the policies apply without changing what the engine sees", () =>
  withMemoryDatabase(async (db) => {
    const config = await loadConfig({
      env: {},
      cwd: "/nonexistent-sutra-dir",
      registry: configKeys,
    });
    const applied = await prepareEngineDatabase(db, { config, logger });
    assert.equal(enforcesRowSecurity(db), false);
    assert.ok(applied.some((m) => m.name === "row-security"));
    await db.query(insertInstance, ["acme", "i-1"]);
    assert.equal((await db.query("select 1 from instances where tenant = 'acme'")).rows.length, 1);
  }));
