/**
 * Version 10: the message waits in the order they were armed, for the
 * console's list of user tasks waiting for a person (`GET /admin/tasks`):
 * the listing reads the oldest message waits from this partial index
 * instead of every waiting row.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create index waits_messages on waits (created_at, wait_id) where kind = 'message';
`;

/** The message-waits-index migration. */
export const MESSAGE_WAITS_INDEX_MIGRATION: Migration = {
  version: 10,
  name: "message-waits-index",
  sql: SQL,
};
