/**
 * Version 12: the signal waits by tenant and signal name, for the
 * broadcast of a thrown signal (`engine/runtime/signals`): it finds the
 * instances waiting for one signal from this partial index instead of
 * reading every waiting row.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

const SQL = `
create index waits_signals on waits (tenant, (detail->>'signal')) where kind = 'signal';
`;

/** The signal-waits-index migration. */
export const SIGNAL_WAITS_INDEX_MIGRATION: Migration = {
  version: 12,
  name: "signal-waits-index",
  sql: SQL,
};
