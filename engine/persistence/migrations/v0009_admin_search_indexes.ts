/**
 * Version 9: indexes for the operator's listings (`GET /admin/instances`,
 * `GET /admin/incidents`). The instance search pages newest first by
 * `(created_at, instance_id)`, so every filter it offers has an index that
 * leads with the filtered column and then carries that order: a page is a
 * short range read however many instances the engine holds, never a sort
 * of all of them. The alias filter finds retired holders too (a finished
 * instance is still searchable by its business key), so it gets an index
 * that is not limited to live rows. Poisoned deliveries and external tasks
 * out of retries are listed newest first from partial indexes that hold
 * only those rows.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create index instances_recent on instances (created_at, instance_id);
create index instances_by_process_recent on instances (process_id, created_at, instance_id);
create index instances_by_status_recent on instances (status, created_at, instance_id);
create index instances_by_deployment_recent on instances (deployment_id, created_at, instance_id);
create index instances_by_failure_code on instances (failure_code, created_at, instance_id)
  where failure_code is not null;
create index aliases_by_value on aliases (name, value, instance_id);
create index outbox_poisoned on outbox (poisoned_at, outbox_id) where poisoned_at is not null;
create index external_tasks_exhausted on external_tasks (created_at, task_id) where terminal;
`;

/** The admin-search-indexes migration. */
export const ADMIN_SEARCH_INDEXES_MIGRATION: Migration = {
  version: 9,
  name: "admin-search-indexes",
  sql: SQL,
};
