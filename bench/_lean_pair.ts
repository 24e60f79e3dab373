/**
 * The physical reference for a durable park+resume pair, measured by
 * `pgbench` on the engine's own server when it is on the PATH: the leanest
 * SQL any durable engine could send for one pair (park: the instance row and
 * its alias in one commit; resume: find the instance by its alias and lock
 * it, update it, retire the alias, in a second commit), beside single-row
 * autocommit inserts, at the engine line's concurrency. The scripts run in a
 * schema of their own (`search_path` set through `PGOPTIONS`), dropped
 * afterwards. Not a benchmark itself: `run_all.ts` skips `_`-prefixed files.
 *
 * @module
 */
import type { LoadOptions } from "./_support.ts";

/** Rates pgbench measured, one after the other, in transactions (pairs, inserts) per second. */
export interface LeanPairRates {
  readonly pairsPerSecond: number;
  readonly insertsPerSecond: number;
}

const TABLES = `
  create table pb_inst (id bigint primary key, tenant text not null, status text not null,
    state bytea not null, updated_at timestamptz not null default now());
  create table pb_alias (tenant text not null, key text not null, inst_id bigint not null,
    primary key (tenant, key));`;

// A parked snapshot and its replacement, each 300 bytes (about what the engine writes for one).
const PAIR = `\\set id random(1, 9000000000000)
BEGIN;
INSERT INTO pb_inst (id, tenant, status, state) VALUES (:id, 't', 'WAITING', decode(repeat('ab', 300), 'hex'));
INSERT INTO pb_alias (tenant, key, inst_id) VALUES ('t', 'E2E-' || :id, :id);
END;
BEGIN;
SELECT a.inst_id, i.state FROM pb_alias a JOIN pb_inst i ON i.id = a.inst_id WHERE a.tenant = 't' AND a.key = 'E2E-' || :id FOR UPDATE OF i;
UPDATE pb_inst SET status = 'COMPLETED', state = decode(repeat('cd', 300), 'hex'), updated_at = now() WHERE id = :id;
DELETE FROM pb_alias WHERE tenant = 't' AND key = 'E2E-' || :id;
END;
`;

const INSERT = `\\set id random(1, 9000000000000)
INSERT INTO pb_inst (id, tenant, status, state) VALUES (:id, 't', 'X', '\\x00');
`;

/** Whether `pgbench` runs here. */
export async function hasPgbench(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("pgbench", { args: ["--version"] }).output();
    return success;
  } catch {
    return false;
  }
}

/**
 * pgbench's lean pairs and single-row inserts per second against the server
 * `url`, `options.workers` clients for `options.seconds` each, in the new
 * schema `options.schema`.
 */
export async function leanPairRates(
  url: string,
  options: LoadOptions & { readonly schema: string },
): Promise<LeanPairRates> {
  const { openDatabase } = await import("../engine/persistence/mod.ts");
  const db = await openDatabase(url, { schema: options.schema, maxConnections: 1 });
  const dir = await Deno.makeTempDir({ prefix: "sutra-lean-pair-" });
  try {
    const script = async (name: string, text: string) => {
      const path = `${dir}/${name}.sql`;
      await Deno.writeTextFile(path, text);
      // Each script starts from empty tables, as the engine lines start from a fresh schema.
      await db.exec(`drop table if exists pb_alias, pb_inst; ${TABLES}`);
      return await pgbench(url, path, options);
    };
    const insertsPerSecond = await script("insert", INSERT);
    const pairsPerSecond = await script("pair", PAIR);
    return { pairsPerSecond, insertsPerSecond };
  } finally {
    await Deno.remove(dir, { recursive: true });
    await db.close();
  }
}

/** Runs the pgbench script at `path`; resolves to its transactions per second. */
async function pgbench(
  url: string,
  path: string,
  options: LoadOptions & { readonly schema: string },
): Promise<number> {
  const threads = Math.max(1, Math.min(options.workers, navigator.hardwareConcurrency));
  const { success, stdout, stderr } = await new Deno.Command("pgbench", {
    args: [
      ...["-n", "-M", "prepared", "-c", String(options.workers), "-j", String(threads)],
      ...["-T", String(Math.max(1, Math.round(options.seconds))), "-f", path, url],
    ],
    env: { PGOPTIONS: `-c search_path=${options.schema}` },
  }).output();
  const out = new TextDecoder().decode(stdout);
  const tps = out.match(/^tps = ([0-9.]+)/m);
  if (!success || !tps) {
    throw new Error(`pgbench failed: ${new TextDecoder().decode(stderr).trim() || out.trim()}`);
  }
  return Number(tps[1]);
}
