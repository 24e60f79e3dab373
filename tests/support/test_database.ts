/**
 * Databases for tests. Tier 1 runs on in-memory PGlite, always. Tier 2 runs
 * against the PostgreSQL server named by `SUTRA_TEST_DATABASE_URL`, each test
 * in a fresh random schema that is dropped afterwards; without the variable
 * those tests are ignored with a notice, unless `SUTRA_TEST_REQUIRE_SERVICES=1`
 * turns the missing server into a failure (CI sets it).
 *
 * @module
 */
import {
  type Database,
  MEMORY_URL,
  openDatabase,
  type OpenDatabaseOptions,
} from "../../engine/persistence/mod.ts";

/** Variable naming the tier-2 PostgreSQL server. */
export const TEST_DATABASE_URL_ENV = "SUTRA_TEST_DATABASE_URL";

/** Variable that makes a missing tier-2 service a failure instead of a skip. */
export const REQUIRE_SERVICES_ENV = "SUTRA_TEST_REQUIRE_SERVICES";

/** The tier-2 server URL, or `undefined` when tier 2 is not configured. */
export function serverDatabaseUrl(): string | undefined {
  return Deno.env.get(TEST_DATABASE_URL_ENV)?.trim() || undefined;
}

/** True when CI demands that every tier-2 service be present. */
export function servicesRequired(): boolean {
  return Deno.env.get(REQUIRE_SERVICES_ENV) === "1";
}

/** Runs `fn` on a fresh in-memory database and closes it afterwards. */
export async function withMemoryDatabase<T>(
  fn: (db: Database) => Promise<T>,
  options: Pick<OpenDatabaseOptions, "schema" | "log"> = {},
): Promise<T> {
  const db = await openDatabase(MEMORY_URL, options);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Where a tier-2 test's isolated schema lives, for opening more connections to it. */
export interface ServerSchema {
  readonly url: string;
  readonly schema: string;
}

/**
 * Runs `fn` on the tier-2 server inside a new random schema, then closes the
 * database and drops the schema. Throws when the server is not configured:
 * register the test with {@link tier2Test} so it is skipped instead.
 */
export async function withServerDatabase<T>(
  fn: (db: Database, target: ServerSchema) => Promise<T>,
): Promise<T> {
  const url = serverDatabaseUrl();
  if (!url) throw new Error(missingServerMessage());
  const schema = `sutra_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const db = await openDatabase(url, { schema });
  try {
    return await fn(db, { url, schema });
  } finally {
    await db.close();
    await dropSchema(url, schema);
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = await openDatabase(url, { maxConnections: 1 });
  try {
    await admin.exec(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.close();
  }
}

function missingServerMessage(): string {
  return `${TEST_DATABASE_URL_ENV} is not set, so there is no PostgreSQL server for tier-2 tests ` +
    `(e.g. ${TEST_DATABASE_URL_ENV}=postgres://postgres@127.0.0.1:5432/test)`;
}

let skipNoticePrinted = false;

/**
 * Registers a test that needs the tier-2 PostgreSQL server. Without
 * `SUTRA_TEST_DATABASE_URL` it is registered as ignored (a notice says why),
 * or, with `SUTRA_TEST_REQUIRE_SERVICES=1`, registered to fail.
 */
export function tier2Test(
  name: string,
  fn: (t: Deno.TestContext) => Promise<void>,
  options: Pick<Deno.TestDefinition, "sanitizeOps" | "sanitizeResources"> = {},
): void {
  const url = serverDatabaseUrl();
  if (!url && !servicesRequired()) {
    if (!skipNoticePrinted) {
      skipNoticePrinted = true;
      console.log(
        `notice: PostgreSQL tier-2 tests are skipped because ${TEST_DATABASE_URL_ENV} is not set ` +
          `(${REQUIRE_SERVICES_ENV}=1 makes that a failure)`,
      );
    }
    Deno.test({ name, ignore: true, fn });
    return;
  }
  Deno.test({
    name,
    ...options,
    async fn(t) {
      if (!url) {
        throw new Error(`${missingServerMessage()}, and ${REQUIRE_SERVICES_ENV}=1 requires it`);
      }
      await fn(t);
    },
  });
}

/**
 * Registers the same test twice, on in-memory PGlite (`name [pglite]`) and
 * on the tier-2 server (`name [postgres]`), so both drivers are held to the
 * same assertions.
 */
export function eachDatabase(name: string, fn: (db: Database) => Promise<void>): void {
  Deno.test(`${name} [pglite]`, () => withMemoryDatabase(fn));
  tier2Test(`${name} [postgres]`, () => withServerDatabase((db) => fn(db)));
}
