/**
 * Version 4: external tasks — deliveries on `pull` channels parked as rows
 * workers fetch and lock.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create table external_tasks (
  tenant text not null default 'default',
  task_id text not null,
  channel text not null,
  instance_id text,
  deployment_id text,
  headers jsonb not null,
  body bytea not null,
  content_type text,
  idempotency_key text not null,
  attempts integer not null default 0,
  retries_left integer not null,
  lock_owner text,
  lock_expires_at timestamptz,
  fetchable_at timestamptz not null default now(),
  last_error text,
  terminal boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (tenant, task_id)
);
create index external_tasks_fetchable on external_tasks (channel, fetchable_at)
  where not terminal;
create index external_tasks_by_deployment on external_tasks (tenant, deployment_id)
  where not terminal;
`;

/** The external-tasks migration. */
export const EXTERNAL_TASKS_MIGRATION: Migration = {
  version: 4,
  name: "external-tasks",
  sql: SQL,
};
