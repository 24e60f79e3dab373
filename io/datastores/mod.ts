/**
 * The built-in data-store providers. Importing this module registers the
 * `sql` provider (PostgreSQL, embedded PGlite, MySQL/MariaDB,
 * SQL Server).
 *
 * @module
 */
import { dataStoreProviders } from "../../engine/core/datastore.ts";
import { sqlProvider } from "./sql.ts";

if (!dataStoreProviders.has(sqlProvider.name)) dataStoreProviders.register(sqlProvider);

export { sqlProvider };
