/**
 * Version 6: where an asynchronous deploy's completion event goes. The
 * destinations ride on the pending row, so whichever replica finishes the
 * activation (the accepting one, or one that took it over) queues the
 * event in the same transaction that settles the deploy.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The deployment-notify migration. */
export const DEPLOYMENT_NOTIFY_MIGRATION: Migration = {
  version: 6,
  name: "deployment-notify",
  sql: "alter table deployments add column notify jsonb;\n",
};
