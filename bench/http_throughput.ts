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
 * The HTTP load of every line comes from a separate Deno process (this file
 * with `--client`, network limited to loopback, killed if it overruns), so
 * the client never competes with the server for one event loop and the
 * echo and engine lines pay the same client cost.
 *
 * @module
 */
import type { RunningEngine } from "../engine/runtime/mod.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) {
  args.set(Deno.args[i].replace(/^--/, ""), Deno.args[i + 1]);
}
const seconds = Number(args.get("seconds") ?? 5);
const concurrency = Number(args.get("concurrency") ?? 16);
// As many lanes as client connections, so the engine may have as many commits in flight as the raw loop.
const shards = Number(args.get("shards") ?? concurrency);
const client = args.get("client");
// Loaded only by the measuring process: the client gets loopback network
// access and nothing else, which the engine's modules would not load with.
const lib = client ? undefined : {
  ...await import("../main.ts"),
  ...await import("../engine/core/mod.ts"),
  ...await import("../engine/core/transport.ts"),
  ...await import("../engine/package/mod.ts"),
  ...await import("../engine/persistence/mod.ts"),
  ...await import("../engine/runtime/mod.ts"),
};
// The client process has no env permission and needs no server URL.
const serverUrl = client ? undefined : Deno.env.get("SUTRA_TEST_DATABASE_URL")?.trim() || undefined;

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

const QUOTE = '{"item":"widget","quantity":3,"unitPrice":2.5}';

/** The HTTP scenarios the client process runs against a base URL. */
const scenarios: Record<string, (base: string) => Promise<number>> = {
  echo: (base) => load(() => call(`${base}/echo`, QUOTE).then(() => {})),
  quote: (base) => load(() => call(`${base}/channels/quote-request`, QUOTE).then(() => {})),
  pairs: (base) => {
    const key = { "x-api-key": "approval-demo-key" };
    return load(async (w, i) => {
      const e2e = `B-${w}-${i}-${crypto.randomUUID().slice(0, 8)}`;
      await call(
        `${base}/channels/approval-request`,
        JSON.stringify({ ApprovalRequest: { E2EId: e2e, Amount: "10.00" } }),
        key,
      );
      await call(
        `${base}/channels/approval-decision`,
        JSON.stringify({ ApprovalDecision: { E2EId: e2e, Decision: "APPROVE" } }),
        key,
      );
    });
  },
};

/** Runs `scenario` against `base` in a child process; resolves to operations per second. */
async function remoteLoad(scenario: string, base: string): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net=127.0.0.1",
      new URL(import.meta.url).pathname,
      "--client",
      scenario,
      "--base",
      base,
      "--seconds",
      String(seconds),
      "--concurrency",
      String(concurrency),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Startup plus the load itself; a wedged client must not hang the bench.
  const overrun = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
  try {
    const { success, stdout } = await child.output();
    if (!success) throw new Error(`the ${scenario} client failed`);
    return Number(new TextDecoder().decode(stdout).trim());
  } finally {
    clearTimeout(overrun);
  }
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
    return await remoteLoad("echo", `http://127.0.0.1:${server.addr.port}`);
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
  const config = await lib!.loadConfig({
    env,
    cwd: "/nonexistent-sutra-dir",
    registry: lib!.configKeys,
  });
  const running = await lib!.startEngine({
    config,
    env,
    logger: lib!.createLogger("engine", { filter: "error", write: () => {} }),
  });
  for (const name of ["quote-reply", "approval-hold"]) {
    const read = await lib!.readPackageDir(
      new URL(`../examples/${name}/package`, import.meta.url).pathname,
    );
    const sealed = read.files &&
      await lib!.sealPackage(read.files, { transports: lib!.transports });
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
  const db = await lib!.openDatabase(serverUrl!, { schema });
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
  const admin = await lib!.openDatabase(serverUrl!, { maxConnections: 1 });
  try {
    await admin.exec(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.close();
  }
}

if (client) {
  console.log(await scenarios[client](args.get("base")!));
} else {
  await measure();
}

async function measure(): Promise<void> {
  const echo = await bareEcho();
  line("bare-echo", echo);

  const schema = serverUrl
    ? `sutra_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`
    : undefined;
  const running = await engine(schema);
  const database = serverUrl ? "postgres" : "pglite-memory";
  let ratios: Record<string, number> = {};
  try {
    const quote = await remoteLoad("quote", running.url);
    line("stateless-quote-reply", quote, { database });
    ratios = { statelessOverEcho: quote / echo };

    if (serverUrl && schema) {
      const pairs = await remoteLoad("pairs", running.url);
      line("approval-park-resume-pairs", pairs, { database });
      const inserts = await rawInserts(`${schema}_raw`);
      line("raw-insert-commits", inserts, { database });
      await dropSchema(`${schema}_raw`);
      ratios = { ...ratios, pairsOverInserts: pairs / inserts };
    } else {
      console.log(JSON.stringify({
        bench: "http_throughput",
        scenario: "approval-park-resume-pairs",
        skipped:
          "SUTRA_TEST_DATABASE_URL is not set; the pair and raw-insert lines need PostgreSQL",
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
}
