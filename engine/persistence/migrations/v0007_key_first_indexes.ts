/**
 * Version 7: every index on the tables that grow with traffic leads with
 * the column that singles rows out, and the tenant comes after it.
 *
 * Statements are prepared once per connection, and PostgreSQL may keep a
 * generic plan for one after a few runs. Until a table is first analyzed
 * its statistics are empty and every plan looks equally cheap; with the
 * tenant leading every index, an index that matches only `tenant = $1`
 * could win the tie over the key, and the plan then scanned all of the
 * tenant's rows on every run, for as long as the connection lived, while
 * the table grew. With the key first, no other index can serve such a
 * statement by the tenant alone. The instance key alone also finds an
 * instance now (`GET /sutra/instances/{id}` does not know the tenant; it
 * used to scan the table). `waits_by_node` was never read; it goes.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
alter table instances drop constraint instances_pkey, add primary key (instance_id, tenant);
drop index instances_by_deployment;
create index instances_by_deployment on instances (deployment_id, tenant, status);
drop index instances_live_by_channel;
create index instances_live_by_channel on instances (channel, tenant)
  where status in ('RUNNING', 'SUSPENDED') and channel is not null;

alter table waits drop constraint waits_pkey, add primary key (wait_id, tenant);
drop index waits_by_instance;
create index waits_by_instance on waits (instance_id, tenant);
drop index waits_by_node;

drop index aliases_lookup;
create index aliases_lookup on aliases (name, value, tenant);
drop index aliases_by_instance;
create index aliases_by_instance on aliases (instance_id, tenant);
`;

/** The key-first-indexes migration. */
export const KEY_FIRST_INDEXES_MIGRATION: Migration = {
  version: 7,
  name: "key-first-indexes",
  sql: SQL,
};
