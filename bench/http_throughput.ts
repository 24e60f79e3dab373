/**
 * HTTP throughput of the durable runtime, on loopback only, each scenario
 * bounded in time:
 *
 *     deno run -P=bench bench/http_throughput.ts [--seconds S] [--concurrency C] [--shards N]
 *
 * Lines (JSON): a bare `Deno.serve` echo; the stateless quote-reply example
 * (a start that completes and answers in one committed step); and, when
 * `SUTRA_TEST_DATABASE_URL` names a PostgreSQL server, approval park+resume
 * pairs next to a raw single-row INSERT commit loop through the same driver
 * at the same concurrency. The last line gives the ratios. The engine
 * database is in-memory PGlite for the stateless line unless the server is
 * configured, in which case every engine line runs on the server (a fresh
 * schema, dropped afterwards). A scenario that sees any non-2xx answer fails.
 *
 * @module
 */
import "../main.ts";
import { configKeys, createLogger, loadConfig } from "../engine/core/mod.ts";
import { transports } from "../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../engine/package/mod.ts";
import { openDatabase } from "../engine/persistence/mod.ts";
import { type RunningEngine, startEngine } from "../engine/runtime/mod.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) {
  args.set(Deno.args[i].replace(/^--/, ""), Deno.args[i + 1]);
}
const seconds = Number(args.get("seconds") ?? 5);
const concurrency = Number(args.get("concurrency") ?? 16);
// As many lanes as client connections, so the engine may have as many commits in flight as the raw loop.
const shards = Number(args.get("shards") ?? concurrency);
const serverUrl = Deno.env.get("SUTRA_TEST_DATABASE_URL")?.trim() || undefined;

/** Runs `op` from `concurrency` workers for `seconds`; resolves to operations per second. */
async function load(op: (worker: number, i: number) => Promise<void>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let done = 0;
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    for (let i = 0; performance.now() < deadline; i++) {
      await op(worker, i);
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

async function call(url: string, body: string, headers: Record<string, string> = {}) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url} answered ${r.status}: ${text}`);
  return text;
}

function line(scenario: string, perSecond: number, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({
    bench: "http_throughput",
    scenario,
    perSecond: Math.round(perSecond),
    concurrency,
    shards,
    seconds,
    ...extra,
  }));
}

async function bareEcho(): Promise<number> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (r) => new Response(await r.text(), { headers: { "content-type": "application/json" } }),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/echo`;
    return await load(() =>
      call(url, '{"item":"widget","quantity":3,"unitPrice":2.5}').then(() => {})
    );
  } finally {
    await server.shutdown();
  }
}

async function engine(schema: string | undefined): Promise<RunningEngine> {
  const env: Record<string, string> = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: serverUrl ?? "memory://",
    SUTRA_ENGINE_SHARDS: String(shards),
    ...(schema ? { SUTRA_DATASOURCE_SCHEMA: schema } : {}),
  };
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const running = await startEngine({
    config,
    env,
    logger: createLogger("engine", { filter: "error", write: () => {} }),
  });
  for (const name of ["quote-reply", "approval-hold"]) {
    const read = await readPackageDir(
      new URL(`../examples/${name}/package`, import.meta.url).pathname,
    );
    const sealed = read.files && await sealPackage(read.files, { transports });
    if (!sealed?.archive) {
      const found = [...read.diagnostics, ...(sealed?.diagnostics ?? [])];
      throw new Error(
        `example ${name} does not package: ${found.map((d) => d.message).join("; ")}`,
      );
    }
    await running.deployments.deploy(sealed.archive.bytes);
  }
  return running;
}

async function rawInserts(schema: string): Promise<number> {
  const db = await openDatabase(serverUrl!, { schema });
  try {
    await db.exec("create table bench_raw (id text primary key, body jsonb not null)");
    return await load((w, i) =>
      db.transaction(async (tx) => {
        await tx.query("insert into bench_raw (id, body) values ($1, $2)", [`${w}-${i}`, { w, i }]);
      })
    );
  } finally {
    await db.close();
  }
}

async function dropSchema(schema: string): Promise<void> {
  const admin = await openDatabase(serverUrl!, { maxConnections: 1 });
  try {
    await admin.exec(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.close();
  }
}

const echo = await bareEcho();
line("bare-echo", echo);

const schema = serverUrl
  ? `sutra_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`
  : undefined;
const running = await engine(schema);
const database = serverUrl ? "postgres" : "pglite-memory";
let ratios: Record<string, number> = {};
try {
  const quote = await load(() =>
    call(`${running.url}/channels/quote-request`, '{"item":"widget","quantity":3,"unitPrice":2.5}')
      .then(() => {})
  );
  line("stateless-quote-reply", quote, { database });
  ratios = { statelessOverEcho: quote / echo };

  if (serverUrl && schema) {
    const key = { "x-api-key": "approval-demo-key" };
    const pairs = await load(async (w, i) => {
      const e2e = `B-${w}-${i}-${crypto.randomUUID().slice(0, 8)}`;
      await call(
        `${running.url}/channels/approval-request`,
        JSON.stringify({ ApprovalRequest: { E2EId: e2e, Amount: "10.00" } }),
        key,
      );
      await call(
        `${running.url}/channels/approval-decision`,
        JSON.stringify({ ApprovalDecision: { E2EId: e2e, Decision: "APPROVE" } }),
        key,
      );
    });
    line("approval-park-resume-pairs", pairs, { database });
    const inserts = await rawInserts(`${schema}_raw`);
    line("raw-insert-commits", inserts, { database });
    await dropSchema(`${schema}_raw`);
    ratios = { ...ratios, pairsOverInserts: pairs / inserts };
  } else {
    console.log(JSON.stringify({
      bench: "http_throughput",
      scenario: "approval-park-resume-pairs",
      skipped: "SUTRA_TEST_DATABASE_URL is not set; the pair and raw-insert lines need PostgreSQL",
    }));
  }
} finally {
  await running.stop();
  if (schema) await dropSchema(schema);
}
console.log(JSON.stringify({
  bench: "http_throughput",
  ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(3))])),
  targets: { statelessOverEcho: 0.4, pairsOverInserts: 0.25 },
}));
