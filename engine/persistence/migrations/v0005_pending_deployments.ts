/**
 * Version 5: asynchronous deploys in flight, recorded durably so every
 * replica answers `Pending` for them and another replica can finish an
 * activation whose replica died.
 *
 * A brand-new revision is stored with status `pending`; a revision that
 * already has a row (failed, retired, draining) keeps its status — a draining
 * one must keep serving its pinned instances — and only gains the marker.
 * `pending_since` is the marker (null when nothing is in flight);
 * `pending_by` names the replica running the activation.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
alter table deployments drop constraint deployments_status_check;
alter table deployments add constraint deployments_status_check
  check (status in ('pending', 'active', 'draining', 'retired', 'failed'));
alter table deployments add column pending_since timestamptz;
alter table deployments add column pending_by text;
create index deployments_pending on deployments (pending_since) where pending_since is not null;
`;

/** The pending-deployments migration. */
export const PENDING_DEPLOYMENTS_MIGRATION: Migration = {
  version: 5,
  name: "pending-deployments",
  sql: SQL,
};
