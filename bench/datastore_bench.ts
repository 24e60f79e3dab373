/**
 * Key/value store throughput against the driver underneath it.
 *
 *     deno run -P=bench bench/datastore_bench.ts [--pairs N]
 *
 * One JSON line per database: embedded PGlite always, the PostgreSQL server
 * when `SUTRA_TEST_DATABASE_URL` is set. Each line gives put+get pairs per
 * second through the `sql` store (each operation its own transaction), the
 * same pairs as a raw single-row upsert plus select through the same driver
 * (autocommit), and `ratio` (store / raw, 1.0 = no overhead). `txRatio`
 * compares the same with each pair in one transaction on both sides, the
 * way a step holds its reads and writes.
 *
 * @module
 */
import { DataStore, dataStoreProviders } from "../engine/core/datastore.ts";
import { defaultResolveContext } from "../engine/core/secrets.ts";
import { openDatabase, type Queryable } from "../engine/persistence/mod.ts";
import "../io/datastores/mod.ts";

const pairsArg = Deno.args.indexOf("--pairs");
const pairs = pairsArg >= 0 ? Number(Deno.args[pairsArg + 1]) : 2000;
const keys = 50;

const targets: { database: string; url: string }[] = [
  { database: "pglite", url: "memory://" },
];
const server = Deno.env.get("SUTRA_TEST_DATABASE_URL")?.trim();
if (server) targets.push({ database: "postgres", url: server });

for (const target of targets) {
  const table = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const storeUrl = target.url === "memory://" ? "pglite:memory://" : target.url;
  const store = new DataStore(
    await dataStoreProviders.get("sql")!.open(
      { name: "bench", type: "sql", settings: { "url-ref": storeUrl, "kv-table": table } },
      { resolve: defaultResolveContext({}), baseDir: "." },
    ),
  );
  const db = await openDatabase(target.url, { maxConnections: 1 });
  try {
    const storeRate = await rate(async (i) => {
      await store.put(`k${i % keys}`, { n: i });
      await store.get(`k${i % keys}`);
    });
    // The raw baseline writes an equivalent row to a table of its own shape.
    await db.exec(
      `CREATE TABLE IF NOT EXISTS ${table}_raw (k TEXT PRIMARY KEY, v TEXT NOT NULL, rev BIGINT NOT NULL)`,
    );
    const rawPair = async (q: Queryable, i: number) => {
      await q.query(
        `INSERT INTO ${table}_raw (k, v, rev) VALUES ($1, $2, 1) ` +
          `ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, rev = ${table}_raw.rev + 1`,
        [`k${i % keys}`, JSON.stringify({ n: i })],
      );
      await q.query(`SELECT v, rev FROM ${table}_raw WHERE k = $1`, [`k${i % keys}`]);
    };
    const rawRate = await rate((i) => rawPair(db, i));
    const storeTxRate = await rate((i) =>
      store.transaction(async (tx) => {
        await tx.put(`k${i % keys}`, { n: i });
        await tx.get(`k${i % keys}`);
      })
    );
    const rawTxRate = await rate((i) => db.transaction((tx) => rawPair(tx, i)));
    console.log(JSON.stringify({
      bench: "datastore-kv",
      database: target.database,
      pairs,
      storePairsPerSec: Math.round(storeRate),
      rawPairsPerSec: Math.round(rawRate),
      ratio: Math.round((storeRate / rawRate) * 100) / 100,
      storeTxPairsPerSec: Math.round(storeTxRate),
      rawTxPairsPerSec: Math.round(rawTxRate),
      txRatio: Math.round((storeTxRate / rawTxRate) * 100) / 100,
    }));
    if (target.database !== "pglite") {
      await db.exec(`DROP TABLE IF EXISTS ${table}_raw; DROP TABLE IF EXISTS ${table}`);
    }
  } finally {
    await store.close();
    await db.close();
  }
}

async function rate(pair: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < Math.min(200, pairs); i++) await pair(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < pairs; i++) await pair(i);
  return pairs / ((performance.now() - start) / 1000);
}
