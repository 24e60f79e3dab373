/**
 * Throughput of the pull worker surface against PostgreSQL, on loopback:
 *
 *     deno run -P=bench bench/external_tasks.ts [--seconds S] [--workers W] [--backlog N]
 *
 * Needs `SUTRA_TEST_DATABASE_URL` (a PostgreSQL server; a fresh schema is
 * used and dropped afterwards); without it the bench prints a skip line.
 * An engine (in this process) parks a backlog of N requests on a pull
 * channel (the `tests/fixtures/runtime/pull_call` package: each completion
 * resumes an instance, which parks one more task on a second channel).
 * Then W workers in a separate Deno process (loopback network only, so they
 * do not compete with the engine for one event loop) fetch-and-lock batches
 * of ten and complete each task for S seconds or until the backlog is gone.
 * Next to that line: a raw single-row INSERT commit loop through the same
 * driver at the same concurrency, measured in the same run, and the ratio.
 * The first line gives the long poll's wake-up latency: the median and worst
 * time from the commit of a park to the answer of a fetch already waiting
 * for it (the PostgreSQL NOTIFY doorbell, not the once-a-second re-poll).
 *
 * @module
 */
import type { RunningEngine } from "../engine/runtime/mod.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i += 2) {
  args.set(Deno.args[i].replace(/^--/, ""), Deno.args[i + 1]);
}
const seconds = Number(args.get("seconds") ?? 5);
const workers = Number(args.get("workers") ?? 4);
const backlog = Number(args.get("backlog") ?? 2000);
const client = args.get("client") !== undefined;
// Loaded only by the measuring process: the client has loopback network access and nothing else.
const lib = client ? undefined : {
  ...await import("../main.ts"),
  ...await import("../engine/core/mod.ts"),
  ...await import("../engine/core/transport.ts"),
  ...await import("../engine/package/mod.ts"),
  ...await import("../engine/persistence/mod.ts"),
  ...await import("../engine/runtime/mod.ts"),
  ...await import("../engine/runtime/external_tasks/mod.ts"),
};
const serverUrl = client ? undefined : Deno.env.get("SUTRA_TEST_DATABASE_URL")?.trim() || undefined;

async function post(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url} answered ${r.status}: ${text}`);
  return JSON.parse(text);
}

/** The client: W workers fetch and complete until the time is up or nothing is left. */
async function work(base: string): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let completed = 0;
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    const workerId = `bench-${w}`;
    while (performance.now() < deadline) {
      const tasks = await post(`${base}/sutra/external-tasks/fetch-and-lock`, {
        workerId,
        channels: ["pc-score"],
        maxTasks: 10,
        lockDuration: "PT1M",
      }) as { id: string; body: string }[];
      if (tasks.length === 0) return;
      for (const task of tasks) {
        const request = JSON.parse(task.body) as { ref: string };
        await post(`${base}/sutra/external-tasks/${task.id}/complete`, {
          workerId,
          result: { ref: request.ref, score: 700 },
        });
        completed++;
      }
    }
  }));
  return completed / ((performance.now() - started) / 1000);
}

async function remoteWork(base: string): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net=127.0.0.1",
      new URL(import.meta.url).pathname,
      "--client",
      "1",
      "--base",
      base,
      "--seconds",
      String(seconds),
      "--workers",
      String(workers),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const overrun = setTimeout(() => child.kill("SIGKILL"), (seconds + 60) * 1000);
  try {
    const { success, stdout } = await child.output();
    if (!success) throw new Error("the worker client failed");
    return Number(new TextDecoder().decode(stdout).trim());
  } finally {
    clearTimeout(overrun);
  }
}

async function engine(schema: string): Promise<RunningEngine> {
  const env: Record<string, string> = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: serverUrl!,
    SUTRA_DATASOURCE_SCHEMA: schema,
    SUTRA_ENGINE_SHARDS: String(workers),
    SUTRA_OUTBOX_POLL_INTERVAL: "PT0.01S",
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
  const read = await lib!.readPackageDir(
    new URL("../tests/fixtures/runtime/pull_call", import.meta.url).pathname,
  );
  const sealed = read.files && await lib!.sealPackage(read.files, { transports: lib!.transports });
  if (!sealed?.archive) {
    const found = [...read.diagnostics, ...(sealed?.diagnostics ?? [])];
    throw new Error(`the bench package does not seal: ${found.map((d) => d.message).join("; ")}`);
  }
  await running.deployments.deploy(sealed.archive.bytes);
  return running;
}

/** Starts `backlog` flows and waits until every request is parked as a task. */
async function fill(running: RunningEngine): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < backlog) {
      const i = next++;
      await post(`${running.url}/channels/pc-start`, { ref: `B-${i}`, amount: i });
    }
  }));
  for (;;) {
    const { rows } = await running.database.query<{ n: number }>(
      "select count(*)::int as n from external_tasks where destination like '%/score'",
    );
    if (rows[0].n >= backlog) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Milliseconds from a park's commit to the answer of a fetch waiting for it, per sample. */
async function wakeLatencies(running: RunningEngine, samples: number): Promise<number[]> {
  const [deployment] = running.deployments.registry.list();
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const waiting = post(`${running.url}/sutra/external-tasks/fetch-and-lock`, {
      workerId: "bench-wake",
      channels: ["pc-score"],
      asyncResponseTimeout: "PT10S",
    });
    // Let the fetch find the channel empty and start waiting before the park.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await running.database.transaction((tx) =>
      lib!.parkTask(tx, {
        taskId: `wake-${i}`,
        deploymentId: deployment.deploymentId,
        destination: "pull://test/pull-call/1.0.0/score",
        headers: {},
        body: new TextEncoder().encode(`{"ref":"W-${i}"}`),
        contentType: "application/json",
        idempotencyKey: `wake-${i}`,
      })
    );
    const committed = performance.now();
    const tasks = await waiting as unknown[];
    if (tasks.length !== 1) throw new Error("the waiting fetch was not answered with the park");
    latencies.push(performance.now() - committed);
  }
  return latencies.sort((a, b) => a - b);
}

async function rawInserts(schema: string): Promise<number> {
  const db = await lib!.openDatabase(serverUrl!, { schema });
  try {
    await db.exec("create table bench_raw (id text primary key, body jsonb not null)");
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    let done = 0;
    await Promise.all(Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await db.transaction(async (tx) => {
          await tx.query("insert into bench_raw (id, body) values ($1, $2)", [`${w}-${i}`, {
            w,
            i,
          }]);
        });
        done++;
      }
    }));
    return done / ((performance.now() - started) / 1000);
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

function line(scenario: string, perSecond: number, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({
    bench: "external_tasks",
    scenario,
    perSecond: Math.round(perSecond),
    workers,
    seconds,
    database: "postgres",
    ...extra,
  }));
}

async function measure(): Promise<void> {
  if (!serverUrl) {
    console.log(JSON.stringify({
      bench: "external_tasks",
      skipped: "SUTRA_TEST_DATABASE_URL is not set; this bench measures against PostgreSQL",
    }));
    return;
  }
  const schema = `sutra_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const running = await engine(schema);
  try {
    const wakes = await wakeLatencies(running, 21);
    console.log(JSON.stringify({
      bench: "external_tasks",
      scenario: "long-poll-wake",
      medianMs: Number(wakes[10].toFixed(1)),
      maxMs: Number(wakes[20].toFixed(1)),
      samples: wakes.length,
      database: "postgres",
    }));
    await fill(running);
    const completed = await remoteWork(running.url);
    line("fetch-complete", completed, { backlog, batch: 10 });
    const inserts = await rawInserts(`${schema}_raw`);
    line("raw-insert-commits", inserts, { concurrency: workers });
    console.log(JSON.stringify({
      bench: "external_tasks",
      ratios: { completedOverInserts: Number((completed / inserts).toFixed(3)) },
    }));
  } finally {
    await running.stop();
    await dropSchema(schema);
    await dropSchema(`${schema}_raw`);
  }
}

if (client) {
  console.log(await work(args.get("base")!));
} else {
  await measure();
}
