/**
 * Diagnostic codes: Data-store projection, DDL replay and runtime refusals (see docs/datastores.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const DATASTORE_CODES = {
  "SUTRA.CONFIG.DATASTORE.COLUMN_FACET_MISMATCH":
    "A projected column is narrower than its field's length or digit facets.",
  "SUTRA.CONFIG.DATASTORE.COLUMN_MISSING":
    "A projected table lacks a declared field's column or a control column.",
  "SUTRA.CONFIG.DATASTORE.COLUMN_NULLABILITY": "An optional field's projected column is NOT NULL.",
  "SUTRA.CONFIG.DATASTORE.COLUMN_TYPE_MISMATCH":
    "A projected column's type family cannot hold its field's XSD type.",
  "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE":
    "A projected store's table shape could not be derived or compared (warning).",
  "SUTRA.CONFIG.DATASTORE.KEY_MISMATCH": "A projected table's primary key is not (store_key).",
  "SUTRA.CONFIG.DATASTORE.STRUCTURE_UNSUPPORTED":
    "A projected structure is not an XSD of the package, or has a binary field.",
  "SUTRA.RUNTIME.DATASTORE.COMMIT_FAILED":
    "A step committed but its data-store writes could not be committed after it.",
  "SUTRA.RUNTIME.DATASTORE.PROJECTION_UNSATISFIABLE":
    "A projected store's live table cannot hold its declared record.",
  "SUTRA.RUNTIME.DATASTORE.REDO_DIVERGED":
    "A step's lost data-store writes could not be replayed: a key moved since (incident).",
  "SUTRA.RUNTIME.DATASTORE.REDONE":
    "A step's data-store writes, lost with a crash or a failed commit, were replayed.",
  "SUTRA.RUNTIME.DATASTORE.UNAVAILABLE":
    "A step wrote to a data store but ran without the deployment's stores.",
  "SUTRA.RUNTIME.DATASTORE.UNDECLARED_FIELD":
    "A record written to a projected store carries a field its type does not declare.",
  "SUTRA.RUNTIME.DATASTORE.VALUE_NOT_A_RECORD":
    "A value written to a projected store is not a flat record.",
  "SUTRA.RUNTIME.DATASTORE.WRITE_FAILED":
    "A step's data-store writes could not be applied; nothing was written.",
} as const;
