/**
 * The built-in data-store providers. Importing this module registers the
 * `sql` provider (PostgreSQL, embedded PGlite, MySQL/MariaDB,
 * SQL Server) and its host for the reserved coverage store.
 *
 * @module
 */
import { dataStoreProviders } from "../../engine/core/datastore.ts";
import { coverageStoreProviders } from "../../engine/runtime/coverage/spi.ts";
import { sqlCoverageProvider } from "./coverage.ts";
import { sqlProvider } from "./sql.ts";

if (!dataStoreProviders.has(sqlProvider.name)) dataStoreProviders.register(sqlProvider);
if (!coverageStoreProviders.has(sqlCoverageProvider.name)) {
  coverageStoreProviders.register(sqlCoverageProvider);
}

export { sqlCoverageProvider, sqlProvider };
