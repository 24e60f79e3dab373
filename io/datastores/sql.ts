/**
 * The `sql` store provider. A store's `sql:` block names its own database
 * by reference (`url-ref`, optional `username-ref` / `password-ref`); the
 * URL scheme picks the dialect:
 *
 * | URL                                  | database                           |
 * | ------------------------------------ | ---------------------------------- |
 * | `postgres://…`, `postgresql://…`     | a PostgreSQL server                |
 * | `pglite:memory://`, `pglite:<dir>`   | embedded PGlite, in memory or a dir |
 * | `mysql://…`, `mariadb://…`           | MySQL or MariaDB                   |
 * | `sqlserver://…`, `mssql://…`         | SQL Server                         |
 *
 * Opening creates the shared key/value table (`kv-table`, default
 * `sutra_datastore`) and re-runs the store's `migrations/<store>/V<n>__*.sql`
 * scripts in version order, all under a lock every process on that database
 * honours, so replicas booting together do not race. Every store, either
 * shape, also gets the engine's table of redo marks, `sutra_store_marks`
 * (see `StoreMark`), shared by all stores on that database. A projected store
 * (a declaration carrying a `projection`) gets no key/value table: its own
 * migrations create its table, which is checked against the projection on
 * first use.
 *
 * @module
 */
import type {
  DataStoreConnection,
  DataStoreDeclaration,
  DataStoreProvider,
  OpenStoreOptions,
} from "../../engine/core/datastore.ts";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import { resolveReference } from "../../engine/core/secrets.ts";
import { mergeCredentials, openDatabase } from "../../engine/persistence/mod.ts";
import { postgresClient } from "./_postgres.ts";
import { ProjectedStoreConnection } from "./_projected.ts";
import { openMysqlClient } from "./_mysql.ts";
import { mssqlConfig, openMssqlClient } from "./_mssql.ts";
import {
  DEFAULT_TABLE,
  isTableName,
  MARKS_LOCK,
  MARKS_TABLE,
  messageOf,
  readMigrations,
  type SqlClient,
  SqlStoreConnection,
} from "./_sql.ts";

/** The provider registered under `type: sql`. */
export const sqlProvider: DataStoreProvider = {
  name: "sql",
  open: openSqlStore,
};

/** What the `sql:` block of a declaration holds once read. */
interface SqlSettings {
  readonly urlRef: string;
  readonly usernameRef?: string;
  readonly passwordRef?: string;
  readonly migrations?: string;
  readonly table: string;
}

async function openSqlStore(
  declaration: DataStoreDeclaration,
  options: OpenStoreOptions,
): Promise<DataStoreConnection> {
  const store = declaration.name;
  const settings = readSettings(declaration);
  const scripts = settings.migrations === undefined
    ? []
    : await readMigrations(store, settings.migrations, options);
  const client = await connectSettings(store, settings, options);
  const projection = declaration.projection;
  try {
    // Shared by every store on the database, so under one lock of its own:
    // concurrent CREATE TABLE IF NOT EXISTS can still collide on PostgreSQL.
    await client.runLocked(MARKS_LOCK, [client.dialect.createMarksTable(MARKS_TABLE)]);
    // A projected table is the package's own DDL; only the key/value table is the engine's.
    await client.runLocked(`sutra.datastore.${store}`, [
      ...(projection ? [] : [client.dialect.createTable(settings.table)]),
      ...scripts.map((s) => s.sql),
    ]);
  } catch (error) {
    await client.close();
    throw new DiagnosticError(diagnostic(
      "SUTRA.RUNTIME.DATASTORE.MIGRATION_FAILED",
      `data store '${store}': preparing ${client.description} failed: ${messageOf(error)}`,
      { attributes: { store } },
    ));
  }
  return projection
    ? new ProjectedStoreConnection(client, { store, projection })
    : new SqlStoreConnection(client, { store, table: settings.table });
}

/**
 * Connects to the database a declaration's `sql:` block names, resolving
 * its references, without preparing anything on it (the reserved coverage
 * store applies the engine's own DDL instead of a store table).
 */
export async function openSqlClient(
  declaration: DataStoreDeclaration,
  options: OpenStoreOptions,
): Promise<SqlClient> {
  return await connectSettings(declaration.name, readSettings(declaration), options);
}

async function connectSettings(
  store: string,
  settings: SqlSettings,
  options: OpenStoreOptions,
): Promise<SqlClient> {
  const url = await resolveReference(settings.urlRef, options.resolve);
  const username = settings.usernameRef === undefined
    ? undefined
    : await resolveReference(settings.usernameRef, options.resolve);
  const password = settings.passwordRef === undefined
    ? undefined
    : await resolveReference(settings.passwordRef, options.resolve);
  return await connect(store, url, { username, password });
}

function readSettings(declaration: DataStoreDeclaration): SqlSettings {
  const sql = declaration.settings;
  const text = (key: string): string | undefined => {
    const v = sql[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || v.trim() === "") {
      throw invalid(declaration.name, `sql.${key} must be a non-empty string`);
    }
    return v.trim();
  };
  const urlRef = text("url-ref");
  if (urlRef === undefined) {
    // Never fall back to the engine's own database.
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.DATASTORE.URL_REF_MISSING",
      `data store '${declaration.name}' declares no sql.url-ref, and a store never borrows ` +
        `the engine's database`,
      { attributes: { store: declaration.name } },
    ));
  }
  const table = text("kv-table") ?? DEFAULT_TABLE;
  if (!isTableName(table)) {
    throw invalid(
      declaration.name,
      `sql.kv-table '${table}' must be a lower-case identifier of at most 63 characters`,
    );
  }
  return {
    urlRef,
    usernameRef: text("username-ref"),
    passwordRef: text("password-ref"),
    migrations: text("migrations"),
    table,
  };
}

async function connect(
  store: string,
  url: string,
  credentials: { readonly username?: string; readonly password?: string },
): Promise<SqlClient> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1].toLowerCase();
  let open: () => Promise<SqlClient>;
  let description: string;
  if (scheme === "postgres" || scheme === "postgresql") {
    description = redact(url);
    open = async () =>
      postgresClient(
        await openDatabase(mergeCredentials(url, credentials), { maxConnections: 10 }),
      );
  } else if (scheme === "pglite") {
    const target = url.slice("pglite:".length);
    if (target === "") throw invalid(store, "a pglite: URL names no directory (or memory://)");
    description = `pglite:${target}`;
    const local = target === "memory://" || target === "memory" ? "memory://" : `file://${target}`;
    open = async () => postgresClient(await openDatabase(local));
  } else if (scheme === "mysql" || scheme === "mariadb") {
    description = redact(url);
    const parsed = new URL(`mysql:${url.slice(scheme.length + 1)}`);
    if (credentials.username) parsed.username = encodeURIComponent(credentials.username);
    if (credentials.password) parsed.password = encodeURIComponent(credentials.password);
    open = () => openMysqlClient(parsed.href, { description });
  } else if (scheme === "sqlserver" || scheme === "mssql") {
    description = redact(url);
    const config = mssqlConfig(url, credentials);
    open = () => openMssqlClient(config, { description });
  } else {
    throw invalid(
      store,
      `its URL '${redact(url)}' is not postgres://, postgresql://, pglite:, mysql://, ` +
        `mariadb://, sqlserver:// or mssql://`,
    );
  }
  try {
    return await open();
  } catch (error) {
    let reason = messageOf(error);
    if (credentials.password) reason = reason.replaceAll(credentials.password, "***");
    const password = URL.parse(url)?.password;
    if (password) reason = reason.replaceAll(password, "***");
    throw new DiagnosticError(diagnostic(
      "SUTRA.RUNTIME.DATASTORE.UNREACHABLE",
      `data store '${store}': cannot connect to ${description}: ${reason}`,
      { attributes: { store } },
    ));
  }
}

function invalid(store: string, message: string): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CONFIG.DATASTORE.INVALID",
    `data store '${store}': ${message}`,
    { attributes: { store } },
  ));
}

// Drops any `user:password@` part, whatever the scheme.
function redact(url: string): string {
  return url.replace(/\/\/[^/?#]*@/, "//");
}
