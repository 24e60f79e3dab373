/**
 * HTTP throughput of the durable runtime, on loopback only, each scenario
 * bounded in time:
 *
 *     deno run -P=bench bench/http_throughput.ts [--seconds S] [--concurrency C] [--shards N]
 *
 * Lines (JSON): a bare `Deno.serve` echo; the stateless quote-reply example
 * (a start that completes and answers in one step), once on an engine that
 * keeps no history (`sutra.instance.retention` PT0S: nothing to commit) and
 * once with the default retention (the finished instance is committed); and,
 * when `SUTRA_TEST_DATABASE_URL` names a PostgreSQL server, approval
 * park+resume pairs next to a raw single-row INSERT commit loop through the
 * same driver at the same concurrency (autocommit statements, the target's
 * floor, and for reference the same inserts each in a BEGIN/COMMIT
 * transaction) and the pairs' own database writes with nothing else
 * (`_pair_writes.ts`: what the database lets any engine keeping the same
 * rows reach), and, when `pgbench` is on the PATH, pgbench's lean pair and
 * single-row inserts on the same server (`_lean_pair.ts`: the physical
 * reference for a pair, ratio `pairsOverLeanPair`). The last line gives the
 * ratios and issue #31's targets. The engine database is
 * in-memory PGlite for the stateless lines unless the server is configured,
 * in which case every engine line runs on the server (a fresh schema,
 * dropped afterwards). Beside the stateless lines, money-transfer's
 * `TransferRequest` over HTTP, sent as XML (validated by its XSD codec)
 * and as JSON (the same codec through the canonical mapping): transfers of
 * one cent back and forth between two accounts, each a committed instance
 * whose data-store transaction locks both rows (the accounts on in-memory
 * PGlite). A scenario that sees any non-2xx answer fails. Last, the
 * stateless quote-reply line with tracing and meters exported to a local
 * OTLP receiver beside the same line without (`_telemetry_bench_line.ts`),
 * and the overhead.
 *
 * The HTTP load of every line comes from a separate Deno process (this file
 * with `--client`, network limited to loopback, killed if it overruns), so
 * the client never competes with the server for one event loop and the
 * echo and engine lines pay the same client cost.
 *
 * Every line also gives its CPU per operation (`cpu`): this process's (the
 * server side) and the whole machine's, with the cores busy on
 * average. Each ratio comes twice: in operations per second, and at equal
 * machine CPU (`…AtEqualMachineCpu`, the ratio of machine CPU per
 * operation), which is the best the first could reach on this machine if
 * both lines kept every core busy.
 *
 * @module
 */
import type { RunningEngine } from "../engine/runtime/mod.ts";
import * as support from "./_support.ts";

const args = support.benchArgs();
const seconds = Number(args.get("seconds") ?? 5);
const concurrency = Number(args.get("concurrency") ?? 16);
// Instances hash onto lanes at random, so with as many lanes as connections about a third of the
// requests would queue behind another on a shared lane; four lanes per connection let nearly all
// of them run at once, as the raw loop's connections do. Requests in flight stay capped by the client.
// (`sutra.engine.shards` allows at most 256.)
const shards = Number(args.get("shards") ?? Math.min(concurrency * 4, 256));
const client = args.get("client");
// The client process has no env permission and needs no server URL.
const serverUrl = client ? undefined : support.serverUrl();
const lines = support.benchLines("http_throughput", { concurrency, shards, seconds });

/** Runs `op` from `concurrency` workers for `seconds`; resolves to operations per second. */
function load(op: (worker: number, i: number) => Promise<void>): Promise<number> {
  return support.throughput({ workers: concurrency, seconds }, op);
}

const QUOTE = '{"item":"widget","quantity":3,"unitPrice":2.5}';

/**
 * A money-transfer request moving one cent between alice and bob, the
 * direction alternating so balances stay put: as XML, or as JSON.
 */
function transfer(format: "xml" | "json", worker: number, i: number): [string, string] {
  const [from, to] = (worker + i) % 2 === 0 ? ["alice", "bob"] : ["bob", "alice"];
  return format === "xml"
    ? [
      "application/xml",
      `<TransferRequest><FromAccount>${from}</FromAccount><ToAccount>${to}</ToAccount><Amount>0.01</Amount></TransferRequest>`,
    ]
    : [
      "application/json",
      JSON.stringify({ TransferRequest: { FromAccount: from, ToAccount: to, Amount: "0.01" } }),
    ];
}

function transfers(base: string, format: "xml" | "json"): Promise<number> {
  return load(async (w, i) => {
    const [type, body] = transfer(format, w, i);
    const answer = await support.postJson(`${base}/channels/transfer-request`, body, {
      "content-type": type,
      "x-api-key": "transfer-demo-key",
    });
    if (!answer.includes("ACCEPTED")) throw new Error(`a transfer was not accepted: ${answer}`);
  });
}

/** Sends a few transfers in each format one after the other, untimed. */
async function warmTransfers(base: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    for (const format of ["xml", "json"] as const) {
      const [type, body] = transfer(format, 0, i);
      await support.postJson(`${base}/channels/transfer-request`, body, {
        "content-type": type,
        "x-api-key": "transfer-demo-key",
      });
    }
  }
}

/** The HTTP scenarios the client process runs against a base URL. */
const scenarios: Record<string, (base: string) => Promise<number>> = {
  echo: (base) => load(() => support.postJson(`${base}/echo`, QUOTE).then(() => {})),
  quote: (base) =>
    load(() => support.postJson(`${base}/channels/quote-request`, QUOTE).then(() => {})),
  "transfer-xml": (base) => transfers(base, "xml"),
  "transfer-json": (base) => transfers(base, "json"),
  pairs: (base) => {
    const key = { "x-api-key": "approval-demo-key" };
    return load(async (w, i) => {
      const e2e = `B-${w}-${i}-${crypto.randomUUID().slice(0, 8)}`;
      await support.postJson(
        `${base}/channels/approval-request`,
        JSON.stringify({ ApprovalRequest: { E2EId: e2e, Amount: "10.00" } }),
        key,
      );
      await support.postJson(
        `${base}/channels/approval-decision`,
        JSON.stringify({ ApprovalDecision: { E2EId: e2e, Decision: "APPROVE" } }),
        key,
      );
    });
  },
};

/** A line's rate and what it cost in CPU. */
interface Measured {
  readonly perSecond: number;
  readonly cpu: support.CpuUse;
}

/** Runs `scenario` against `base` in a child process, measuring from the client's first request. */
async function remoteLoad(scenario: string, base: string): Promise<Measured> {
  const meter = support.cpuMeter();
  const perSecond = await support.runClient(import.meta.url, {
    args: ["--client", scenario, "--base", base, "--concurrency", String(concurrency)],
    seconds,
    what: scenario,
    onLoad: meter.start,
  });
  return { perSecond, cpu: meter.stop(perSecond) };
}

/** Prints `measured` as the throughput line of `scenario`. */
function report(scenario: string, measured: Measured, extra: Record<string, unknown> = {}): void {
  lines.rate(scenario, measured.perSecond, { ...extra, cpu: measured.cpu });
}

/**
 * How `line` compares with `floor` in operations per second, and per unit
 * of machine CPU (what the ratio would be if the machine's cores were the
 * only limit), when the machine figure is known.
 */
function ratio(
  ratios: Record<string, number>,
  name: string,
  line: Measured,
  floor: Measured,
): void {
  ratios[name] = line.perSecond / floor.perSecond;
  const [lineUs, floorUs] = [line.cpu.machineUsPerOp, floor.cpu.machineUsPerOp];
  if (lineUs && floorUs) ratios[`${name}AtEqualMachineCpu`] = floorUs / lineUs;
}

async function bareEcho(): Promise<Measured> {
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

function engine(
  schema: string | undefined,
  settings: Record<string, string> = {},
): Promise<RunningEngine> {
  return support.startBenchEngine({
    env: {
      SUTRA_DATASOURCE_URL: serverUrl ?? "memory://",
      SUTRA_ENGINE_SHARDS: String(shards),
      // money-transfer's accounts: never a directory beside the bench.
      ACCOUNTS_DB_URL: "pglite:memory://",
      ...(schema ? { SUTRA_DATASOURCE_SCHEMA: schema } : {}),
      ...settings,
    },
    packages: ["quote-reply", "approval-hold", "money-transfer"].map((name) =>
      new URL(`../examples/${name}/package`, import.meta.url).pathname
    ),
  });
}

if (client) {
  console.log(support.LOAD_STARTS);
  console.log(await scenarios[client](args.get("base")!));
} else {
  await measure();
}

async function measure(): Promise<void> {
  const echo = await bareEcho();
  report("bare-echo", echo);
  const database = serverUrl ? "postgres" : "pglite-memory";
  const ratios: Record<string, number> = {};

  // With no history kept, a start that ends in its first step has nothing to commit.
  await withEngine({ SUTRA_INSTANCE_RETENTION: "PT0S" }, async (running) => {
    const quote = await remoteLoad("quote", running.url);
    report("stateless-quote-reply", quote, { database, retention: "PT0S" });
    ratio(ratios, "statelessNoHistoryOverEcho", quote, echo);
  });

  await withEngine({}, async (running, schema) => {
    const quote = await remoteLoad("quote", running.url);
    report("stateless-quote-reply", quote, { database, retention: "P7D" });
    ratio(ratios, "statelessOverEcho", quote, echo);

    // The first transfers compile the flow (JIT, statements, the accounts store): both formats are
    // warmed up untimed first, so the line that happens to run first does not pay for it.
    await warmTransfers(running.url);
    const xml = await remoteLoad("transfer-xml", running.url);
    report("money-transfer-xml", xml, { database, accounts: "pglite-memory" });
    const json = await remoteLoad("transfer-json", running.url);
    report("money-transfer-json", json, { database, accounts: "pglite-memory" });
    ratio(ratios, "transferXmlOverJson", xml, json);
    ratio(ratios, "transferXmlOverStateless", xml, quote);

    if (serverUrl && schema) {
      const pairs = await remoteLoad("pairs", running.url);
      report("approval-park-resume-pairs", pairs, { database });
      const serverSide = async (run: () => Promise<number>): Promise<Measured> => {
        const meter = support.cpuMeter();
        const perSecond = await run();
        return { perSecond, cpu: meter.stop(perSecond) };
      };
      const raw = (transaction: boolean) =>
        serverSide(() =>
          support.rawInsertCommits(serverUrl, {
            schema: `${schema}_raw${transaction ? "_tx" : ""}`,
            workers: concurrency,
            seconds,
            transaction,
          })
        );
      const inserts = await raw(false);
      report("raw-insert-commits", inserts, { database });
      const insertTransactions = await raw(true);
      report("raw-insert-transactions", insertTransactions, { database });
      const { pairWritesFloor } = await import("./_pair_writes.ts");
      const pairWrites = await serverSide(() =>
        pairWritesFloor(serverUrl, { schema: `${schema}_pairs`, workers: concurrency, seconds })
      );
      report("pair-writes-floor", pairWrites, { database });
      const lean = await leanPairReference(serverUrl, `${schema}_lean`);
      for (const suffix of ["_raw", "_raw_tx", "_pairs", "_lean"]) {
        await support.dropSchema(serverUrl, schema + suffix);
      }
      if (lean) {
        ratios.pairsOverLeanPair = pairs.perSecond / lean.pairsPerSecond;
        ratios.leanPairOverPgbenchInserts = lean.pairsPerSecond / lean.insertsPerSecond;
      }
      ratio(ratios, "statelessOverInserts", quote, inserts);
      ratio(ratios, "pairsOverInserts", pairs, inserts);
      ratio(ratios, "pairsOverInsertTransactions", pairs, insertTransactions);
      ratio(ratios, "pairsOverPairWritesFloor", pairs, pairWrites);
      ratio(ratios, "pairWritesFloorOverInserts", pairWrites, inserts);
    } else {
      lines.record({
        scenario: "approval-park-resume-pairs",
        skipped:
          "SUTRA_TEST_DATABASE_URL is not set; the pair and raw-insert lines need PostgreSQL",
      });
    }
  });
  // Tracing and meters exported to a local OTLP receiver, beside the same line without them.
  const { telemetryBenchLines } = await import("./_telemetry_bench_line.ts");
  await telemetryBenchLines({
    seconds,
    concurrency,
    shards,
    lines,
    ...(serverUrl ? { database: serverUrl } : {}),
    load: (base) => remoteLoad("quote", base),
  });
  lines.record({
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(3))])),
    // Issue #31's: pairs at half the lean pgbench pair, at most 1.5× the floor's machine CPU.
    targets: {
      statelessNoHistoryOverEcho: 0.55,
      statelessOverInserts: 0.8,
      pairsOverLeanPair: 0.5,
      pairsOverPairWritesFloorAtEqualMachineCpu: 0.667,
    },
  });
}

/**
 * pgbench's lean pair and single-row inserts on the engine's server at the
 * same concurrency, printed as lines of their own; undefined (with a line
 * saying so) when pgbench is not on the PATH.
 */
async function leanPairReference(url: string, schema: string) {
  const { hasPgbench, leanPairRates } = await import("./_lean_pair.ts");
  if (!(await hasPgbench())) {
    lines.record({ scenario: "lean-pair-pgbench", skipped: "pgbench is not on the PATH" });
    return undefined;
  }
  const rates = await leanPairRates(url, { schema, workers: concurrency, seconds });
  lines.rate("lean-pair-pgbench", rates.pairsPerSecond, { database: "postgres" });
  lines.rate("insert-pgbench", rates.insertsPerSecond, { database: "postgres" });
  return rates;
}

/** Runs `use` against an engine with `settings` on a fresh schema (when on the server). */
async function withEngine(
  settings: Record<string, string>,
  use: (running: RunningEngine, schema: string | undefined) => Promise<void>,
): Promise<void> {
  const schema = serverUrl ? support.freshSchema() : undefined;
  const running = await engine(schema, settings);
  try {
    await use(running, schema);
  } finally {
    await running.stop();
    if (schema) await support.dropSchema(serverUrl!, schema);
  }
}
