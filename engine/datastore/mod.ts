/**
 * engine/datastore: a deployment's declared data stores opened through the
 * provider registry, the executor's store port backed by them, and the
 * rules of a projected store: its declared record read from the package's
 * XSD, flatness, column naming, and the resolved projection.
 *
 * @module
 */
export { DataStoreSet, declarationOf, openDataStores } from "./stores.ts";
export { businessStores, openPackageStores } from "./package_stores.ts";
export { StepStores, type StepStoresOptions, type StoreIo } from "./step_stores.ts";
export { type RedoWrite, replayInto, type ReplayOutcome, type StoreRedo } from "./redo.ts";
export {
  projectionRefusals,
  type ProjectionSource,
  type ResolvedProjection,
  resolveProjection,
} from "./projection.ts";
export { type DeclaredField, type FieldFacets, XsdFolder } from "./xsd_fields.ts";
export { isXsdNumeric, XSD_INTEGER_TYPES } from "./xsd_builtins.ts";
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
export {
  DEFAULT_STORE_RETRY,
  isTransientStoreError,
  retryDelayMs,
  type StoreRetryPolicy,
  type TransientReason,
  TransientStoreError,
} from "./transient.ts";
