/**
 * engine/persistence: the engine database behind one interface (a PostgreSQL
 * server or embedded PGlite), how to open it from a datasource URL, and the
 * versioned migrations that shape it.
 *
 * @module
 */
export {
  CommitInDoubtError,
  type Database,
  type DriverKind,
  type Queryable,
  type QueryResult,
  SqlError,
  type SqlErrorFields,
  type Transaction,
} from "./database.ts";
export {
  type DatabaseTarget,
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  DEFAULT_EMBEDDED_DIR,
  MEMORY_URL,
  mergeCredentials,
  openDatabase,
  type OpenDatabaseOptions,
  resolveDatabaseTarget,
} from "./open.ts";
export {
  checksum,
  LEDGER_TABLE,
  migrate,
  type MigrateOptions,
  type Migration,
  type MigrationState,
  migrationStatus,
  type MigrationStatusEntry,
  verifyMigrations,
} from "./migrations.ts";
export { ENGINE_MIGRATIONS } from "./engine_migrations.ts";
export { jsonRecords, valuesList } from "./values_list.ts";
