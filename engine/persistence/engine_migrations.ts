/**
 * The engine's own schema, as the ordered list of migrations this build
 * ships. The scripts are string constants rather than files so a compiled
 * binary carries them without reading anything from disk.
 *
 * A shipped script never changes once released: the ledger stores its
 * checksum and a changed script refuses to boot. Schema changes are new
 * versions appended to the list.
 *
 * @module
 */
import type { Migration } from "./migrations.ts";
import { RUNTIME_MIGRATION } from "./migrations/v0002_runtime.ts";
import { SCHEDULES_MIGRATION } from "./migrations/v0003_schedules.ts";
import { EXTERNAL_TASKS_MIGRATION } from "./migrations/v0004_external_tasks.ts";
import { PENDING_DEPLOYMENTS_MIGRATION } from "./migrations/v0005_pending_deployments.ts";
import { DEPLOYMENT_NOTIFY_MIGRATION } from "./migrations/v0006_deployment_notify.ts";
import { KEY_FIRST_INDEXES_MIGRATION } from "./migrations/v0007_key_first_indexes.ts";
import { INBOX_CAPTURES_MIGRATION } from "./migrations/v0008_inbox_captures.ts";
import { ADMIN_SEARCH_INDEXES_MIGRATION } from "./migrations/v0009_admin_search_indexes.ts";
import { MESSAGE_WAITS_INDEX_MIGRATION } from "./migrations/v0010_message_waits_index.ts";
import { ROW_SECURITY_MIGRATION } from "./migrations/v0011_row_security.ts";
import { SIGNAL_WAITS_INDEX_MIGRATION } from "./migrations/v0012_signal_waits_index.ts";
import { STORE_REDO_MIGRATION } from "./migrations/v0013_store_redo.ts";

/** Version 1: the leases that elect one engine per role (timers, sweeps, …). */
const FOUNDATION = `
create table leases (
  tenant text not null default 'default',
  role text not null,
  owner text not null,
  expires_at timestamptz not null,
  acquired_at timestamptz not null default now(),
  primary key (tenant, role)
);
`;

/** Every engine migration, ascending by version. */
export const ENGINE_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "foundation", sql: FOUNDATION },
  RUNTIME_MIGRATION,
  SCHEDULES_MIGRATION,
  EXTERNAL_TASKS_MIGRATION,
  PENDING_DEPLOYMENTS_MIGRATION,
  DEPLOYMENT_NOTIFY_MIGRATION,
  KEY_FIRST_INDEXES_MIGRATION,
  INBOX_CAPTURES_MIGRATION,
  ADMIN_SEARCH_INDEXES_MIGRATION,
  MESSAGE_WAITS_INDEX_MIGRATION,
  ROW_SECURITY_MIGRATION,
  SIGNAL_WAITS_INDEX_MIGRATION,
  STORE_REDO_MIGRATION,
];
