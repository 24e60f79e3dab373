/**
 * Roles for the row-level security tests on the tier-2 server: a
 * table-owning migration role, the engine's role, and one with BYPASSRLS,
 * each made for one test and dropped after it.
 *
 * @module
 */
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { type Database, openDatabase } from "../../engine/persistence/mod.ts";
import { prepareEngineDatabase } from "../../engine/runtime/tenancy/mod.ts";
import { serverDatabaseUrl } from "../support/test_database.ts";

const logger = createLogger("test", { filter: "error", write: () => {} });

/** A URL of the tier-2 server logging in as `role`. */
export function as(role: string): string {
  const url = new URL(serverDatabaseUrl()!);
  url.username = role;
  url.password = "";
  return url.href;
}

/** The three roles of one test. */
export interface Roles {
  /** Owns the tables and migrates. */
  readonly owner: string;
  /** The engine's role; the schema carries its name, so its default search path finds it. */
  readonly app: string;
  /** Has BYPASSRLS. */
  readonly bypass: string;
}

/** Makes the roles and the engine schema (owned by the migration role), runs `fn`, drops them. */
export async function withRoles(fn: (roles: Roles) => Promise<void>): Promise<void> {
  const tag = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  const roles = {
    owner: `sutra_rls_${tag}_owner`,
    app: `sutra_rls_${tag}_app`,
    bypass: `sutra_rls_${tag}_bypass`,
  };
  const admin = await openDatabase(serverDatabaseUrl()!, { maxConnections: 1 });
  try {
    await admin.exec(`
      create role ${roles.owner} login;
      create role ${roles.app} login nobypassrls;
      create role ${roles.bypass} login bypassrls;
      create schema ${roles.app} authorization ${roles.owner};
      grant create on database ${new URL(serverDatabaseUrl()!).pathname.slice(1)} to ${roles.owner};
      grant usage on schema ${roles.app} to ${roles.bypass};
      alter role ${roles.bypass} set search_path = ${roles.app};
    `);
    await fn(roles);
  } finally {
    await admin.exec(`
      drop schema if exists ${roles.app} cascade;
      drop owned by ${roles.owner}, ${roles.app}, ${roles.bypass};
      drop role if exists ${roles.owner}; drop role if exists ${roles.app}; drop role if exists ${roles.bypass};
    `);
    await admin.close();
  }
}

/** Runs the engine's database preparation on `runtime`, migrating as the owner role. */
export async function prepare(runtime: Database, roles: Roles): Promise<void> {
  const env = {
    SUTRA_DATASOURCE_MIGRATION_URL: as(roles.owner),
    SUTRA_DATASOURCE_SCHEMA: roles.app,
  };
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  await prepareEngineDatabase(runtime, { config, logger });
}
