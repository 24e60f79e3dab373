/**
 * engine/datastore: a deployment's declared data stores opened through the
 * provider registry, the executor's store port backed by them, and the
 * naming and flatness rules of a projected store's columns.
 *
 * @module
 */
export { DataStoreSet, declarationOf, openDataStores } from "./stores.ts";
export { StepStores } from "./step_stores.ts";
export {
  type ColumnPlan,
  CONTROL_COLUMNS,
  foldColumnName,
  MAX_COLUMN_NAME,
  planColumns,
  type ProjectionTarget,
  type StructureField,
  structureFieldsOf,
} from "./columns.ts";
