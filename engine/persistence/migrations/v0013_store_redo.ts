/**
 * Version 13: the data-store redo log. A step that writes to data stores
 * records its writes here in its own commit (one row per step), because
 * the stores commit after the engine and a crash in between would lose
 * them; the row goes once the stores have committed, and a replay
 * (`engine/runtime/store_redo`) applies the writes of rows left behind.
 * A replay that cannot apply them marks its row diverged, which keeps it
 * as an incident.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The table this version adds; it carries a tenant column and a policy like version 11's. */
export const STORE_REDO_TABLE = "store_redo";

const SQL = `
create table store_redo (
  tenant text not null default 'default',
  redo_id text not null primary key,
  instance_id text not null,
  deployment_id text not null,
  marked_at bigint not null,
  writes jsonb not null,
  written_at timestamptz not null default now(),
  diverged_at timestamptz,
  detail text
);
create index store_redo_pending on store_redo (written_at) where diverged_at is null;
create index store_redo_diverged on store_redo (diverged_at desc, redo_id desc)
  where diverged_at is not null;
alter table store_redo enable row level security;
create policy sutra_tenant on store_redo
  using (tenant = current_setting('sutra.tenant', true)
         or current_setting('sutra.tenant', true) = '*');
`;

/** The store-redo migration. */
export const STORE_REDO_MIGRATION: Migration = {
  version: 13,
  name: "store-redo",
  sql: SQL,
};
