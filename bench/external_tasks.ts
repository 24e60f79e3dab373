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
 * driver at the same concurrency, measured in the same run, and, when
 * `pgbench` is on the PATH, its lean park+resume pair at the same
 * concurrency (`_lean_pair.ts`; each completion does a pair's work), with
 * the ratios.
 * The first line gives the long poll's wake-up latency: the median and worst
 * time from the commit of a park to the answer of a fetch already waiting
 * for it (the PostgreSQL NOTIFY doorbell, not the once-a-second re-poll).
 *
 * @module
 */
import type { RunningEngine } from "../engine/runtime/mod.ts";
import * as support from "./_support.ts";

const args = support.benchArgs();
const seconds = Number(args.get("seconds") ?? 5);
const workers = Number(args.get("workers") ?? 4);
const backlog = Number(args.get("backlog") ?? 2000);
const client = args.get("client") !== undefined;
const serverUrl = client ? undefined : support.serverUrl();
const lines = support.benchLines("external_tasks", { workers, seconds, database: "postgres" });

async function post(url: string, body: unknown): Promise<unknown> {
  return JSON.parse(await support.postJson(url, JSON.stringify(body)));
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

function remoteWork(base: string): Promise<number> {
  return support.runClient(import.meta.url, {
    args: ["--client", "1", "--base", base, "--workers", String(workers)],
    seconds,
    what: "worker",
  });
}

function engine(schema: string): Promise<RunningEngine> {
  return support.startBenchEngine({
    env: {
      SUTRA_DATASOURCE_URL: serverUrl!,
      SUTRA_DATASOURCE_SCHEMA: schema,
      SUTRA_ENGINE_SHARDS: String(workers),
    },
    packages: [new URL("../tests/fixtures/runtime/pull_call", import.meta.url).pathname],
  });
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
  // Loaded here, in the measuring process only (see `_support.ts`).
  const { parkTask } = await import("../engine/runtime/external_tasks/mod.ts");
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
      parkTask(tx, {
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

async function measure(): Promise<void> {
  if (!serverUrl) {
    lines.record({
      skipped: "SUTRA_TEST_DATABASE_URL is not set; this bench measures against PostgreSQL",
    });
    return;
  }
  const schema = support.freshSchema();
  const running = await engine(schema);
  try {
    const wakes = await wakeLatencies(running, 21);
    lines.record({
      scenario: "long-poll-wake",
      medianMs: Number(wakes[10].toFixed(1)),
      maxMs: Number(wakes[20].toFixed(1)),
      samples: wakes.length,
      database: "postgres",
    });
    await fill(running);
    const completed = await remoteWork(running.url);
    lines.rate("fetch-complete", completed, { backlog, batch: 10 });
    const inserts = await support.rawInsertCommits(serverUrl, {
      schema: `${schema}_raw`,
      workers,
      seconds,
    });
    lines.rate("raw-insert-commits", inserts, { concurrency: workers });
    const ratios: Record<string, number> = { completedOverInserts: completed / inserts };
    const { hasPgbench, leanPairRates } = await import("./_lean_pair.ts");
    if (await hasPgbench()) {
      const lean = await leanPairRates(serverUrl, { schema: `${schema}_lean`, workers, seconds });
      lines.rate("lean-pair-pgbench", lean.pairsPerSecond, { concurrency: workers });
      ratios.completedOverLeanPair = completed / lean.pairsPerSecond;
    } else {
      lines.record({ scenario: "lean-pair-pgbench", skipped: "pgbench is not on the PATH" });
    }
    lines.record({
      ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(3))])),
      // Issue #31's: each completion is a pair's work (it resumes an instance that parks the next task).
      targets: { completedOverLeanPair: 0.5 },
    });
  } finally {
    await running.stop();
    for (const suffix of ["", "_raw", "_lean"]) {
      await support.dropSchema(serverUrl, schema + suffix);
    }
  }
}

if (client) {
  console.log(await work(args.get("base")!));
} else {
  await measure();
}
