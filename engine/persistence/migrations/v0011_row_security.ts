/**
 * Version 11: row-level security on every tenant-scoped engine table. Each
 * table gets one policy that lets a statement see and write only the rows
 * of the tenant its transaction names in the `sutra.tenant` setting
 * (`set_config('sutra.tenant', …, true)`); `*` names every tenant, for the
 * engine's own fleet-wide work (sweeps, timers, the outbox, leases). With
 * the setting absent or empty a statement sees no row at all.
 *
 * PostgreSQL does not apply a policy to a superuser, to a role with
 * BYPASSRLS or to the table's owner (the migration role): the engine
 * refuses to run as such a role when it has a separate migration role
 * (`engine/runtime/tenancy/row_security.ts`). The embedded database runs as
 * a superuser, so there the policies exist but never filter.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The engine tables that carry a tenant column. */
export const TENANT_TABLES: readonly string[] = [
  "leases",
  "deployments",
  "instances",
  "waits",
  "aliases",
  "inbox",
  "outbox",
  "audit_events",
  "incidents",
  "schedules",
  "external_tasks",
];

const SQL = TENANT_TABLES.map((table) => `
alter table ${table} enable row level security;
create policy sutra_tenant on ${table}
  using (tenant = current_setting('sutra.tenant', true)
         or current_setting('sutra.tenant', true) = '*');
`).join("");

/** The row-security migration. */
export const ROW_SECURITY_MIGRATION: Migration = {
  version: 11,
  name: "row-security",
  sql: SQL,
};
