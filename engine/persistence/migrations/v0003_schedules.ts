/**
 * Version 3: schedules — one row per timer start event of a deployment.
 * A row is armed while its deployment is active and carries the next due
 * instant on the cycle's grid, how many grid slots are behind it (a
 * bounded cycle's budget is spent by the grid, not by the firing) and how
 * many times it actually fired (missed slots coalesce into one fire).
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
  slots integer not null default 0,
  fires integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant, deployment_id, process_id, node_id)
);
create index schedules_due on schedules (due_at) where status = 'armed';
`;

/** The schedules migration. */
export const SCHEDULES_MIGRATION: Migration = { version: 3, name: "schedules", sql: SQL };
