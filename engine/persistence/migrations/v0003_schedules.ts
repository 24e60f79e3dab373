/**
 * Version 3: schedules — one row per timer start event of a deployment,
 * armed while the deployment is active, with the next due instant and how
 * many occurrences have fired.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create table schedules (
  tenant text not null default 'default',
  deployment_id text not null,
  process_id text not null,
  node_id text not null,
  status text not null default 'armed' check (status in ('armed', 'resolved', 'spent')),
  due_at timestamptz,
  fired integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant, deployment_id, process_id, node_id)
);
create index schedules_due on schedules (due_at) where status = 'armed';
`;

/** The schedules migration. */
export const SCHEDULES_MIGRATION: Migration = { version: 3, name: "schedules", sql: SQL };
