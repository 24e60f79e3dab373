/**
 * Version 4: external tasks — deliveries on `pull` channels parked as rows
 * workers fetch and lock.
 *
 * A task is addressed by the deployment that owns it and the destination
 * (the channel's bind) it was emitted to; the channel name a worker asks
 * for is resolved against the live deployment set at fetch time.
 * `retries_left` stays null until the first reported failure, meaning the
 * configured budget (`sutra.external-task.retries`), because the sink that
 * parks a task runs below the configuration.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create table external_tasks (
  tenant text not null default 'default',
  task_id text not null,
  deployment_id text not null,
  destination text not null,
  instance_id text,
  headers jsonb not null,
  body bytea not null,
  content_type text,
  idempotency_key text not null,
  attempts integer not null default 0,
  retries_left integer,
  lock_owner text,
  lock_expires_at timestamptz,
  -- the owner whose lock lapsed before the current one was taken
  expired_owner text,
  fetchable_at timestamptz not null default now(),
  last_error text,
  terminal boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (tenant, task_id)
);
create unique index external_tasks_task_id on external_tasks (task_id);
create unique index external_tasks_idempotency on external_tasks (tenant, idempotency_key);
create index external_tasks_fetchable on external_tasks (deployment_id, destination, fetchable_at)
  where not terminal;
`;

/** The external-tasks migration. */
export const EXTERNAL_TASKS_MIGRATION: Migration = {
  version: 4,
  name: "external-tasks",
  sql: SQL,
};
