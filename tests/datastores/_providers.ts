/**
 * The databases the provider contract runs against: embedded PGlite always;
 * the PostgreSQL server (`SUTRA_TEST_DATABASE_URL`) and MariaDB/MySQL
 * (`SUTRA_TEST_MYSQL_URL`) when configured. Each test gets its own key/value
 * table (dropped afterwards) so parallel test files never share rows.
 *
 * @module
 */
import mysql from "mysql2/promise";
import {
  DataStore,
  type DataStoreDeclaration,
  dataStoreProviders,
  type StoreProjection,
} from "../../engine/core/datastore.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import "../../io/datastores/mod.ts";
import "../../io/secrets/mod.ts";
import {
  REQUIRE_SERVICES_ENV,
  serverDatabaseUrl,
  servicesRequired,
  TEST_DATABASE_URL_ENV,
} from "../support/test_database.ts";

/** Variable naming the tier-2 MySQL/MariaDB server. */
export const TEST_MYSQL_URL_ENV = "SUTRA_TEST_MYSQL_URL";

/** One database the contract runs on. */
export interface Target {
  readonly label: string;
  /** The store URL, or undefined when the service is not configured. */
  readonly url: string | undefined;
  readonly env?: string;
}

/** A fresh store environment for one test. */
export interface StoreKit {
  readonly url: string;
  /** A table name unique to this test. */
  readonly table: string;
  /** Opens a store on the test's table; `settings` extend its `sql:` block. */
  open(
    name: string,
    options?: {
      readonly settings?: Record<string, unknown>;
      readonly baseDir?: string;
      /** Makes it a projected store. */
      readonly projection?: StoreProjection;
    },
  ): Promise<DataStore>;
  /** Also drops `table` (one a migration created) when the test ends. */
  dropAfter(table: string): void;
}

/** Every target, configured or not. */
export function targets(): Target[] {
  return [
    { label: "pglite", url: "pglite:memory://" },
    { label: "postgres", url: serverDatabaseUrl(), env: TEST_DATABASE_URL_ENV },
    {
      label: "mysql",
      url: Deno.env.get(TEST_MYSQL_URL_ENV)?.trim() || undefined,
      env: TEST_MYSQL_URL_ENV,
    },
  ];
}

/** Opens a declared store through the registered provider. */
export async function openStore(
  declaration: DataStoreDeclaration,
  baseDir = ".",
): Promise<DataStore> {
  const provider = dataStoreProviders.get(declaration.type);
  if (!provider) throw new Error(`no provider for '${declaration.type}'`);
  const connection = await provider.open(declaration, {
    resolve: defaultResolveContext({}),
    baseDir,
  });
  return new DataStore(connection);
}

const noticed = new Set<string>();

/**
 * Registers `fn` once per target (`name [pglite]`, …). An unconfigured
 * server target is ignored with a notice, or fails under
 * `SUTRA_TEST_REQUIRE_SERVICES=1`.
 */
export function eachProvider(
  name: string,
  fn: (kit: StoreKit) => Promise<void>,
  options: { readonly serversOnly?: boolean } = {},
): void {
  for (const target of targets()) {
    // Embedded PGlite has one connection: two transactions never overlap there.
    if (options.serversOnly && target.label === "pglite") continue;
    const title = `${name} [${target.label}]`;
    if (!target.url) {
      if (!servicesRequired()) {
        if (!noticed.has(target.label)) {
          noticed.add(target.label);
          console.log(
            `notice: ${target.label} data-store tests are skipped because ${target.env} is not ` +
              `set (${REQUIRE_SERVICES_ENV}=1 makes that a failure)`,
          );
        }
        Deno.test({ name: title, ignore: true, fn: () => {} });
        continue;
      }
      Deno.test(title, () => {
        throw new Error(`${target.env} is not set, and ${REQUIRE_SERVICES_ENV}=1 requires it`);
      });
      continue;
    }
    const url = target.url;
    Deno.test(title, async () => {
      const table = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
      const opened: DataStore[] = [];
      const tables = [table];
      const kit: StoreKit = {
        url,
        table,
        open: async (store, options = {}) => {
          const ds = await openStore({
            name: store,
            type: "sql",
            settings: { "url-ref": url, "kv-table": table, ...options.settings },
            ...(options.projection ? { projection: options.projection } : {}),
          }, options.baseDir);
          opened.push(ds);
          return ds;
        },
        dropAfter: (t) => tables.push(t),
      };
      try {
        await fn(kit);
      } finally {
        for (const ds of opened) await ds.close();
        await dropTables(url, tables);
      }
    });
  }
}

async function dropTables(url: string, tables: readonly string[]): Promise<void> {
  if (url.startsWith("pglite:")) return; // in memory: gone with the store
  if (url.startsWith("mysql:") || url.startsWith("mariadb:")) {
    const conn = await mysql.createConnection({ uri: url.replace(/^mariadb:/, "mysql:") });
    try {
      for (const t of tables) await conn.query(`DROP TABLE IF EXISTS \`${t}\``);
    } finally {
      await conn.end();
    }
    return;
  }
  const db = await openDatabase(url, { maxConnections: 1 });
  try {
    for (const t of tables) await db.exec(`DROP TABLE IF EXISTS "${t}"`);
  } finally {
    await db.close();
  }
}
