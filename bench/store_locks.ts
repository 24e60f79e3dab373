/**
 * Store lock waits against unrelated work, on the tier-2 PostgreSQL server
 * (`SUTRA_TEST_DATABASE_URL`; the engine in a fresh schema, the
 * money-transfer `accounts` store in a fresh database, both dropped after):
 *
 *     deno run -P=bench bench/store_locks.ts [--seconds S] [--shards N] [--concurrency C]
 *
 * One engine serves money-transfer (tenant `default`) and approval-hold
 * (tenant `demo`). Three phases of S seconds each, every line JSON:
 *
 * - `quiet`: approval requests alone (C workers);
 * - `contended`: the same approval load while C more workers send
 *   transfers between alice and bob in both directions (the transfers'
 *   own row locks queue them on each other);
 * - `held`: the approval load while a transaction of the bench holds
 *   alice's row lock for the whole phase (every transfer touching alice
 *   waits on it).
 *
 * Each line gives the approval rate and median latency, the transfers
 * answered (by status) and the FAILED instances.
 *
 * @module
 */
import "../io/secrets/mod.ts";
import "../io/codecs/mod.ts";
import "../io/transports/mod.ts";
import "../io/datastores/mod.ts";
import { configKeys, createLogger, loadConfig } from "../engine/core/mod.ts";
import { transports } from "../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../engine/package/mod.ts";
import { openDatabase } from "../engine/persistence/mod.ts";
import { type RunningEngine, startEngine } from "../engine/runtime/mod.ts";

const args = new Map(
  Deno.args.flatMap((a, i, all) => a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : []),
);
const seconds = Number(args.get("seconds") ?? 5);
const shards = Number(args.get("shards") ?? 1);
const concurrency = Number(args.get("concurrency") ?? 8);
const server = Deno.env.get("SUTRA_TEST_DATABASE_URL");
if (!server) throw new Error("SUTRA_TEST_DATABASE_URL names no PostgreSQL server");

const TRANSFER_KEY = { "x-api-key": "transfer-demo-key" };
const APPROVAL_KEY = { "x-api-key": "approval-demo-key" };

async function seal(dir: string): Promise<Uint8Array> {
  const read = await readPackageDir(new URL(`../${dir}`, import.meta.url).pathname);
  if (!read.files) throw new Error(read.diagnostics.map((d) => d.message).join("\n"));
  const sealed = await sealPackage(read.files, { transports });
  if (!sealed.archive) throw new Error(sealed.diagnostics.map((d) => d.message).join("\n"));
  return sealed.archive.bytes;
}

async function post(engine: RunningEngine, path: string, body: unknown, headers = {}) {
  const response = await fetch(`${engine.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** Workers repeating `op` until `until` resolves; the latencies (ms) and answers by status. */
async function loop(
  workers: number,
  until: Promise<void>,
  op: (n: number) => Promise<number>,
): Promise<{ latencies: number[]; statuses: Record<string, number> }> {
  let stop = false;
  void until.then(() => stop = true);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let n = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (!stop) {
      const t = performance.now();
      const status = await op(n++);
      latencies.push(performance.now() - t);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }));
  return { latencies, statuses };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : Math.round(s[Math.floor(s.length / 2)] * 10) / 10;
}

const run = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
const storeDb = `sutra_bench_accounts_${run}`;
const schema = `sutra_bench_${run}`;
const admin = await openDatabase(server, { maxConnections: 1 });
await admin.exec(`create database ${storeDb}`);
const storeUrl = Object.assign(new URL(server), { pathname: `/${storeDb}` }).href;
const env: Record<string, string> = {
  SUTRA_HTTP_PORT: "0",
  SUTRA_HTTP_HOST: "127.0.0.1",
  SUTRA_DATASOURCE_URL: server,
  SUTRA_DATASOURCE_SCHEMA: schema,
  SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  SUTRA_ENGINE_SHARDS: String(shards),
  ACCOUNTS_DB_URL: storeUrl,
};
const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
const engine = await startEngine({
  config,
  env,
  logger: createLogger("engine", { filter: "error", write: () => {} }),
});
try {
  await engine.deployments.deploy(await seal("examples/money-transfer/package"));
  await engine.deployments.deploy(await seal("examples/approval-hold/package"));
  await post(
    engine,
    "/channels/balance-query",
    { BalanceQuery: { Account: "alice" } },
    TRANSFER_KEY,
  );

  const approval = (n: number) =>
    post(engine, "/channels/approval-request", {
      ApprovalRequest: { E2EId: `E2E-${run}-${phase}-${n}`, Amount: "10.00" },
    }, APPROVAL_KEY).then((a) => a.status);
  const transfer = (n: number) =>
    post(engine, "/channels/transfer-request", {
      TransferRequest: n % 2 === 0
        ? { FromAccount: "alice", ToAccount: "bob", Amount: "1.00" }
        : { FromAccount: "bob", ToAccount: "alice", Amount: "1.00" },
    }, TRANSFER_KEY).then((a) => a.status);
  const failed = async () =>
    (await engine.database.query<{ n: number }>(
      "select count(*)::int as n from instances where status = 'FAILED'",
    )).rows[0].n;
  const elapsed = () => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

  let phase = "quiet";
  const report = async (
    approvals: Awaited<ReturnType<typeof loop>>,
    transfers?: Awaited<ReturnType<typeof loop>>,
  ) =>
    console.log(JSON.stringify({
      bench: "store_locks",
      phase,
      shards,
      concurrency,
      seconds,
      approvalsPerSecond: Math.round(approvals.latencies.length / seconds * 10) / 10,
      approvalP50Ms: median(approvals.latencies),
      approvalStatuses: approvals.statuses,
      ...(transfers
        ? { transfersAnswered: transfers.statuses, transferP50Ms: median(transfers.latencies) }
        : {}),
      failedInstances: await failed(),
    }));

  await report(await loop(concurrency, elapsed(), approval));

  phase = "contended";
  {
    const end = elapsed();
    const [approvals, transfers] = await Promise.all([
      loop(concurrency, end, approval),
      loop(concurrency, end, transfer),
    ]);
    await report(approvals, transfers);
  }

  phase = "held";
  {
    const holderDb = await openDatabase(storeUrl, { maxConnections: 1 });
    const release = Promise.withResolvers<void>();
    const locked = Promise.withResolvers<void>();
    const holding = holderDb.transaction(async (tx) => {
      await tx.query(
        "select 1 from sutra_datastore where store_name = 'accounts' and store_key = 'alice' for update",
        [],
      );
      locked.resolve();
      await release.promise;
    });
    await locked.promise;
    const end = elapsed();
    const transfers = loop(concurrency, end.then(() => release.resolve()), transfer);
    const approvals = await loop(concurrency, end, approval);
    release.resolve();
    await holding;
    await holderDb.close();
    await report(approvals, await transfers);
  }
} finally {
  await engine.stop();
  await admin.exec(`drop schema if exists "${schema}" cascade`);
  await admin.exec(`drop database if exists ${storeDb} with (force)`);
  await admin.close();
}
