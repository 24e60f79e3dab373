/**
 * Row-level security on the engine database (migration v11): the engine
 * migrates with a separate, table-owning role when
 * `sutra.datasource.migration-url` names one, grants its own role the rights
 * it needs, and refuses to run as a role the policies would not confine.
 *
 * PostgreSQL skips every policy for a superuser, a role with BYPASSRLS and
 * the owner of a table (or a member of the owning role). With one role for
 * both migrating and running, the engine owns its tables, so the policies
 * cannot apply: that posture (and the embedded database, which runs as a
 * superuser) is allowed, with a warning on a server.
 *
 * @module
 */
import type { Config } from "../../core/config.ts";
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import type { Logger } from "../../core/log.ts";
import {
  type Database,
  ENGINE_MIGRATIONS,
  LEDGER_TABLE,
  migrate,
  type Migration,
  openDatabase,
  type Queryable,
} from "../../persistence/mod.ts";
import { TENANT_TABLES } from "../../persistence/migrations/v0011_row_security.ts";
import { STORE_REDO_TABLE } from "../../persistence/migrations/v0013_store_redo.ts";

/** Every engine table with a tenant column and its policy: version 11's and those added since. */
const POLICED_TABLES: readonly string[] = [...TENANT_TABLES, STORE_REDO_TABLE];
import { DATASOURCE_MIGRATION_URL, DATASOURCE_SCHEMA } from "../settings.ts";

/** The `sutra.tenant` value of the engine's own fleet-wide work: every tenant. */
export const EVERY_TENANT = "*";

// The databases whose engine role the policies confine (checked at boot): only their commits
// pay for narrowing each tenant's statements to it.
const enforcing = new WeakSet<Database>();

/**
 * Whether the policies confine the engine's role on `db`, so a transaction
 * doing one tenant's work should narrow itself ({@link scopeToTenant}).
 * False on the embedded database and with one role for migrating and
 * running, where PostgreSQL skips the policies anyway.
 */
export function enforcesRowSecurity(db: Database): boolean {
  return enforcing.has(db);
}

/** Why row-level security would not confine a role; empty when it would. */
export interface RoleBypass {
  readonly role: string;
  readonly superuser: boolean;
  readonly bypassrls: boolean;
  /** Engine tables the role owns, directly or through a role it belongs to. */
  readonly owns: readonly string[];
}

/**
 * Confines the rest of `tx`'s transaction to `tenant`'s rows (or every
 * tenant's, {@link EVERY_TENANT}). Called again in the same transaction, the
 * latest call holds: a group commit mixing tenants scopes each tenant's
 * statements in turn.
 */
export async function scopeToTenant(tx: Pick<Queryable, "query">, tenant: string): Promise<void> {
  await tx.query("select set_config('sutra.tenant', $1, true)", [tenant]);
}

/** How the role behind `db` stands towards the engine tables' policies. */
export async function roleBypass(db: Pick<Queryable, "query">): Promise<RoleBypass> {
  const { rows } = await db.query<{ role: string; superuser: boolean; bypassrls: boolean }>(
    `select current_user::text as role, rolsuper as superuser, rolbypassrls as bypassrls
       from pg_roles where rolname = current_user`,
  );
  const owned = await db.query<{ name: string }>(
    `select c.relname::text as name from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
        and c.relname = any(string_to_array($1, ','))
        and pg_has_role(current_user, c.relowner, 'USAGE')
      order by c.relname`,
    [POLICED_TABLES.join(",")],
  );
  return { ...rows[0], owns: owned.rows.map((r) => r.name) };
}

/** Whether any policy would be skipped for the role. */
export function bypasses(b: RoleBypass): boolean {
  return b.superuser || b.bypassrls || b.owns.length > 0;
}

function bypassDiagnostic(b: RoleBypass, refused: boolean) {
  const reasons = [
    ...(b.superuser ? ["is a superuser"] : []),
    ...(b.bypassrls ? ["has BYPASSRLS"] : []),
    ...(b.owns.length > 0 ? [`owns the engine tables (${b.owns.join(", ")})`] : []),
  ];
  const consequence = refused
    ? "row-level security would not confine it; run the engine as a role without these " +
      "(the migration role owns the tables), see docs/security.md"
    : "row-level security does not confine it; set sutra.datasource.migration-url to a " +
      "separate table-owning role to enforce it, see docs/security.md";
  return diagnostic(
    "SUTRA.DB.ROLE_BYPASSES_RLS",
    `the engine's database role '${b.role}' ${reasons.join(", ")}: ${consequence}`,
    {
      severity: refused ? "ERROR" : "WARNING",
      attributes: {
        role: b.role,
        superuser: b.superuser,
        bypassrls: b.bypassrls,
        ownsTables: b.owns.length > 0,
      },
    },
  );
}

/** Options for {@link prepareEngineDatabase}. */
export interface PrepareOptions {
  readonly config: Config;
  readonly logger: Logger;
}

/**
 * Brings the engine schema up to date and checks the engine's role: with
 * `sutra.datasource.migration-url`, the migrations run as that role, which
 * then grants the engine's role its rights, and a role that bypasses
 * row-level security refuses the boot (`SUTRA.DB.ROLE_BYPASSES_RLS`);
 * without it, `database` migrates itself, warned about on a server.
 * Answers the migrations applied.
 */
export async function prepareEngineDatabase(
  database: Database,
  o: PrepareOptions,
): Promise<Migration[]> {
  const migrationUrl = o.config.get(DATASOURCE_MIGRATION_URL)?.trim();
  if (!migrationUrl) {
    const applied = await migrate(database, ENGINE_MIGRATIONS);
    if (database.driver === "postgres") {
      const bypass = await roleBypass(database);
      if (bypasses(bypass)) {
        const warning = bypassDiagnostic(bypass, false);
        o.logger.warn(warning.message, { code: warning.code, ...warning.attributes });
      }
    }
    return applied;
  }
  if (database.driver !== "postgres") {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.PROPERTY.INVALID",
      `${DATASOURCE_MIGRATION_URL.key} is set, but the engine database is embedded; it applies to a PostgreSQL server only`,
      { attributes: { key: DATASOURCE_MIGRATION_URL.key } },
    ));
  }
  const { rows } = await database.query<{ role: string }>("select current_user::text as role");
  const owner = await openDatabase(migrationUrl, {
    schema: o.config.get(DATASOURCE_SCHEMA),
    maxConnections: 1,
  });
  let applied: Migration[];
  try {
    applied = await migrate(owner, ENGINE_MIGRATIONS);
    await grantRuntime(owner, rows[0].role);
  } finally {
    await owner.close();
  }
  const bypass = await roleBypass(database);
  if (bypasses(bypass)) throw new DiagnosticError(bypassDiagnostic(bypass, true));
  enforcing.add(database);
  return applied;
}

/** The rights the engine's role needs on the tables the migration role owns. */
async function grantRuntime(owner: Database, role: string): Promise<void> {
  const { rows } = await owner.query<{ statement: string }>(
    `select format('grant usage on schema %I to %I', current_schema(), $1::text) as statement
     union all
     select format('grant select, insert, update, delete on %I.%I to %I',
                   current_schema(), c.relname, $1::text)
       from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
        and c.relname = any(string_to_array($2, ','))
     union all
     select format('grant select on %I.%I to %I', current_schema(), $3::text, $1::text)`,
    [role, POLICED_TABLES.join(","), LEDGER_TABLE],
  );
  for (const { statement } of rows) await owner.exec(statement);
}
