/**
 * Version 8: the inbox as on-persist captures use it.
 *
 * - A capture keeps its delivery's reply route (a broker's `reply-to` and
 *   the correlation headers the answer carries). It used to live only in
 *   memory, so a capture redriven after a crash ran without it and its
 *   `q:reply` went nowhere.
 * - The key leads with the event id, as version 7 did for the other tables
 *   that grow with traffic: the captures a group of steps consumed are
 *   marked done by one statement naming their ids as a list, and with the
 *   tenant and channel leading, a plan made before the table was analyzed
 *   probed the key by those two alone and read every row of the channel.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
alter table inbox add column reply_to jsonb;
alter table inbox drop constraint inbox_pkey, add primary key (event_id, channel, tenant);
`;

/** The inbox-captures migration. */
export const INBOX_CAPTURES_MIGRATION: Migration = {
  version: 8,
  name: "inbox-captures",
  sql: SQL,
};
