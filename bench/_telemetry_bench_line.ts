/**
 * The telemetry line of `bench:http`: the stateless quote-reply line (a
 * start that completes and answers in one step, default retention) on an
 * engine with tracing and meters on — every span exported over OTLP/HTTP to
 * the local test receiver, `GET /sutra/metrics` served — beside the same
 * engine with telemetry off, alternating the two so drift on a busy
 * machine falls on both. The receiver runs in a process of its own, as a
 * collector would, so its JSON parsing does not share the engine's event
 * loop, and keeps nothing. Prints one rate line per variant, then the overhead (target
 * ≤ 0.10) twice, each the median over the rounds of a traced run against
 * the plain run just before it: in throughput (`1 - traced/plain`) and in
 * the engine process's CPU per message (`traced/plain - 1`), the steadier
 * figure on a busy machine; and what the receiver got. The export interval
 * is the default (a full batch of spans is sent at once anyway).
 *
 * ```ts
 * import { telemetryBenchLines } from "./_telemetry_bench_line.ts";
 * await telemetryBenchLines({
 *   seconds, concurrency, shards, lines, load: (base) => remoteLoad("quote", base),
 * });
 * ```
 *
 * Run on its own (`deno run -P=bench bench/_telemetry_bench_line.ts [--seconds S]
 * [--concurrency C] [--rounds R]`) it drives the load with `http_throughput.ts`'s own client.
 *
 * @module
 */
import type { RunningEngine } from "../engine/runtime/mod.ts";
import * as support from "./_support.ts";

/** Options for {@link telemetryBenchLines}. */
export interface TelemetryBenchOptions {
  readonly seconds: number;
  readonly concurrency: number;
  readonly shards: number;
  readonly lines: support.BenchLines;
  /** The quote-reply load against a base URL: its rate and CPU (as `http_throughput.ts` measures). */
  readonly load: (base: string) => Promise<Measured>;
  /** Measurements of each variant, alternating (default 2). */
  readonly rounds?: number;
  /** A PostgreSQL server URL for the engine database (in-memory PGlite without it). */
  readonly database?: string;
}

/** A load's rate and what it cost in CPU. */
export interface Measured {
  readonly perSecond: number;
  readonly cpu: support.CpuUse;
}

/** The two rates (mean over the rounds) and the overheads. */
export interface TelemetryBenchResult {
  readonly plain: number;
  readonly traced: number;
  /** `1 - traced / plain`. */
  readonly overhead: number;
  /** Engine-process CPU per message, traced over plain, minus one. */
  readonly cpuOverhead: number;
}

const RECEIVER_FLAG = "--otlp-receiver";

/**
 * The receiver process: an OTLP/HTTP endpoint that checks and counts what it
 * is sent and keeps nothing, as a collector forwarding it elsewhere would
 * (the tests' receiver keeps every span, whose memory and collection would
 * weigh on a machine the engine shares). Prints its URL, and what it
 * received once its stdin closes.
 */
async function receiverProcess(): Promise<void> {
  let spans = 0;
  const requests: Record<string, number> = {};
  const protocolErrors: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    requests[path] = (requests[path] ?? 0) + 1;
    try {
      if (!req.headers.get("content-type")?.startsWith("application/json")) {
        throw new Error(`content-type ${req.headers.get("content-type")}`);
      }
      const body = await req.json();
      if (path === "/v1/traces") {
        for (const rs of body.resourceSpans) {
          for (const ss of rs.scopeSpans) spans += ss.spans.length;
        }
      } else if (path !== "/v1/metrics" && path !== "/v1/logs") {
        return new Response(null, { status: 404 });
      }
      return Response.json({});
    } catch (error) {
      protocolErrors.push(`${path}: ${error instanceof Error ? error.message : error}`);
      return new Response(null, { status: 400 });
    }
  });
  console.log(`http://127.0.0.1:${server.addr.port}`);
  for await (const _ of Deno.stdin.readable) { /* runs until the parent closes stdin */ }
  console.log(JSON.stringify({ spans, requests, protocolErrors: protocolErrors.length }));
  await server.shutdown();
}

/** Starts the receiver process; resolves to its URL and a stop that answers its counts. */
async function spawnReceiver(): Promise<{ url: string; stop(): Promise<Record<string, unknown>> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "--allow-net=127.0.0.1", new URL(import.meta.url).pathname, RECEIVER_FLAG],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the OTLP receiver process ended before it listened");
    text += value;
  }
  const [url, ...rest] = text.split("\n");
  return {
    url,
    async stop() {
      await child.stdin.close();
      let out = rest.join("\n");
      for (let r = await lines.read(); !r.done; r = await lines.read()) out += r.value;
      await child.status;
      return JSON.parse(out.trim());
    },
  };
}

function engine(
  o: TelemetryBenchOptions,
  settings: Record<string, string>,
): Promise<RunningEngine> {
  return support.startBenchEngine({
    env: {
      SUTRA_DATASOURCE_URL: o.database ?? "memory://",
      SUTRA_ENGINE_SHARDS: String(o.shards),
      ...settings,
    },
    packages: [new URL("../examples/quote-reply/package", import.meta.url).pathname],
  });
}

/** Measures the quote-reply line with telemetry off and on; prints the lines. */
export async function telemetryBenchLines(o: TelemetryBenchOptions): Promise<TelemetryBenchResult> {
  const receiver = await spawnReceiver();
  const variants = {
    off: {},
    "otlp+prometheus": {
      SUTRA_TELEMETRY_OTLP_ENDPOINT: receiver.url,
      SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true",
    },
  };
  const runs: Record<keyof typeof variants, Measured[]> = { off: [], "otlp+prometheus": [] };
  let received: Record<string, unknown> = {};
  try {
    for (let round = 0; round < (o.rounds ?? 2); round++) {
      for (const name of Object.keys(variants) as (keyof typeof variants)[]) {
        const running = await engine(o, variants[name]);
        try {
          runs[name].push(await o.load(running.url));
        } finally {
          await running.stop();
        }
      }
    }
  } finally {
    received = await receiver.stop();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const summary = (ms: Measured[]) => ({
    perSecond: mean(ms.map((m) => m.perSecond)),
    runs: ms.map((m) => Math.round(m.perSecond)),
    cpu: ms.map((m) => m.cpu),
  });
  const plain = summary(runs.off);
  const traced = summary(runs["otlp+prometheus"]);
  const database = o.database ? "postgres" : "pglite-memory";
  o.lines.rate("stateless-quote-reply", plain.perSecond, {
    telemetry: "off",
    database,
    runs: plain.runs,
    cpu: plain.cpu,
  });
  o.lines.rate("stateless-quote-reply", traced.perSecond, {
    telemetry: "otlp+prometheus",
    database,
    runs: traced.runs,
    cpu: traced.cpu,
    receiver: received,
  });
  // Each round's traced run is compared with the plain run just before it; the median of those
  // ratios is steadier on a shared machine than a ratio of means.
  const pairs = runs.off.map((p, i) => [p, runs["otlp+prometheus"][i]] as const);
  const rateRatio = median(pairs.map(([p, t]) => t.perSecond / p.perSecond));
  const cpuRatio = median(pairs.map(([p, t]) => t.cpu.processUsPerOp / p.cpu.processUsPerOp));
  const overhead = 1 - rateRatio;
  const cpuOverhead = cpuRatio - 1;
  o.lines.record({
    ratios: {
      tracedOverPlain: Number(rateRatio.toFixed(3)),
      tracedOverPlainCpuPerOp: Number(cpuRatio.toFixed(3)),
    },
    telemetryOverhead: Number(overhead.toFixed(3)),
    telemetryCpuOverhead: Number(cpuOverhead.toFixed(3)),
    targets: { telemetryOverhead: 0.1, telemetryCpuOverhead: 0.1 },
    note: "measured on a machine shared with other work",
  });
  return { plain: plain.perSecond, traced: traced.perSecond, overhead, cpuOverhead };
}

if (import.meta.main) {
  if (Deno.args[0] === RECEIVER_FLAG) {
    await receiverProcess();
  } else {
    const args = support.benchArgs();
    const seconds = Number(args.get("seconds") ?? 5);
    const concurrency = Number(args.get("concurrency") ?? 16);
    const shards = Number(args.get("shards") ?? Math.min(concurrency * 4, 256));
    const lines = support.benchLines("http_throughput", { concurrency, shards, seconds });
    const client = new URL("./http_throughput.ts", import.meta.url).href;
    await telemetryBenchLines({
      seconds,
      concurrency,
      shards,
      lines,
      rounds: Number(args.get("rounds") ?? 2),
      database: support.serverUrl(),
      load: async (base) => {
        const meter = support.cpuMeter();
        const perSecond = await support.runClient(client, {
          args: ["--client", "quote", "--base", base, "--concurrency", String(concurrency)],
          seconds,
          what: "quote",
          onLoad: meter.start,
        });
        return { perSecond, cpu: meter.stop(perSecond) };
      },
    });
  }
}
