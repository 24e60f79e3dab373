/**
 * What the HTTP-driven benchmarks share: their `--name value` arguments, a
 * timed load from concurrent workers, the loopback-only client process that
 * drives it, an engine with packages deployed, the raw single-row INSERT
 * commit loop they are held against, and their JSON lines. Not a benchmark
 * itself: `run_all.ts` skips `_`-prefixed files.
 *
 * Engine modules are imported inside the functions that use them, never at
 * the top: a bench module loads this file in its client process too, which
 * has loopback network access and nothing else, and the engine's modules
 * would not load there.
 *
 * @module
 */
import nodeOs from "node:os";
import nodeProcess from "node:process";
import type { RunningEngine } from "../engine/runtime/mod.ts";
import { textLines } from "../tests/support/script_process.ts";

/** The `--name value` pairs of a bench's command line, by name without the dashes. */
export function benchArgs(argv: readonly string[] = Deno.args): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) args.set(argv[i].replace(/^--/, ""), argv[i + 1]);
  return args;
}

/** The PostgreSQL server named by `SUTRA_TEST_DATABASE_URL`, when one is. */
export function serverUrl(): string | undefined {
  return Deno.env.get("SUTRA_TEST_DATABASE_URL")?.trim() || undefined;
}

/** How long a load runs and from how many concurrent loops. */
export interface LoadOptions {
  readonly workers: number;
  readonly seconds: number;
}

/**
 * Runs `op` from `options.workers` concurrent loops until `options.seconds`
 * have passed; resolves to operations per second.
 */
export async function throughput(
  options: LoadOptions,
  op: (worker: number, i: number) => Promise<void>,
): Promise<number> {
  const deadline = performance.now() + options.seconds * 1000;
  const started = performance.now();
  let done = 0;
  await Promise.all(Array.from({ length: options.workers }, async (_, worker) => {
    for (let i = 0; performance.now() < deadline; i++) {
      await op(worker, i);
      done++;
    }
  }));
  return done / ((performance.now() - started) / 1000);
}

/** POSTs the JSON text `body` and answers the response's text; a non-2xx answer throws. */
export async function postJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<string> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url} answered ${r.status}: ${text}`);
  return text;
}

/**
 * Runs the bench module `module` again as its own load client, in a child
 * process whose only permission is loopback network, with `options.args`;
 * resolves to the number the client prints last. A client that prints
 * {@link LOAD_STARTS} first has `options.onLoad` called then, so a
 * measurement can leave out the client's own start-up. A client still
 * running a minute after its `options.seconds` of load is killed, so a
 * wedged one cannot hang the bench.
 */
export async function runClient(
  module: string,
  options: {
    readonly args: readonly string[];
    readonly seconds: number;
    readonly what: string;
    readonly onLoad?: () => void;
  },
): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net=127.0.0.1",
      new URL(module).pathname,
      ...options.args,
      "--seconds",
      String(options.seconds),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const overrun = setTimeout(() => child.kill("SIGKILL"), (options.seconds + 60) * 1000);
  try {
    let last = "";
    for await (
      const line of child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(textLines())
    ) {
      if (line === LOAD_STARTS) options.onLoad?.();
      else if (line.trim() !== "") last = line;
    }
    if (!(await child.status).success) throw new Error(`the ${options.what} client failed`);
    return Number(last.trim());
  } finally {
    clearTimeout(overrun);
  }
}

/** What a load client prints just before its load begins (see {@link runClient}). */
export const LOAD_STARTS = "load starts";

/**
 * CPU spent while a load ran, per operation: by this process (the server
 * side of every line: the engine, the echo server, the raw insert loop's
 * driver) and by the whole machine (client, server, database
 * and everything else), with how many cores were busy on average. The
 * machine figure is the physical cost of an operation: at full use of the
 * machine, no line can beat `1e6 × cores / machineUsPerOp` per second.
 */
export interface CpuUse {
  readonly processUsPerOp: number;
  readonly machineUsPerOp?: number;
  readonly machineBusyCores?: number;
}

/** Starts measuring CPU; `stop` takes the operations per second the load reached. */
export function cpuMeter(): { start(): void; stop(perSecond: number): CpuUse } {
  let processAt = 0;
  let machineAt: number | undefined;
  let startedAt = 0;
  const start = () => {
    processAt = processCpuUs();
    machineAt = machineCpuUs();
    startedAt = performance.now();
  };
  start();
  return {
    start,
    stop(perSecond) {
      const seconds = (performance.now() - startedAt) / 1000;
      const ops = perSecond * seconds;
      const use: { -readonly [K in keyof CpuUse]: CpuUse[K] } = {
        processUsPerOp: Math.round((processCpuUs() - processAt) / ops),
      };
      const now = machineCpuUs();
      if (now !== undefined && machineAt !== undefined) {
        const busyUs = now - machineAt;
        use.machineUsPerOp = Math.round(busyUs / ops);
        use.machineBusyCores = Number((busyUs / 1e6 / seconds).toFixed(2));
      }
      return use;
    },
  };
}

function processCpuUs(): number {
  const { user, system } = nodeProcess.cpuUsage();
  return user + system;
}

/** Busy time of all cores so far, in microseconds; undefined where the system does not say. */
function machineCpuUs(): number | undefined {
  const cores = nodeOs.cpus();
  if (cores.length === 0) return undefined;
  // Milliseconds per core since boot, counted in the kernel's clock ticks.
  return cores.reduce((sum, { times: t }) => sum + t.user + t.nice + t.sys + t.irq, 0) * 1000;
}

/**
 * Starts an engine on a loopback port with `options.env` added to its
 * settings, and deploys each package directory of `options.packages`.
 */
export async function startBenchEngine(options: {
  readonly env: Readonly<Record<string, string>>;
  readonly packages: readonly string[];
}): Promise<RunningEngine> {
  const lib = {
    ...await import("../main.ts"),
    ...await import("../engine/core/mod.ts"),
    ...await import("../engine/core/transport.ts"),
    ...await import("../engine/package/mod.ts"),
    ...await import("../engine/runtime/mod.ts"),
  };
  const env = { SUTRA_HTTP_PORT: "0", SUTRA_HTTP_HOST: "127.0.0.1", ...options.env };
  const config = await lib.loadConfig({
    env,
    cwd: "/nonexistent-sutra-dir",
    registry: lib.configKeys,
  });
  const running = await lib.startEngine({
    config,
    env,
    logger: lib.createLogger("engine", { filter: "error", write: () => {} }),
  });
  for (const dir of options.packages) {
    const read = await lib.readPackageDir(dir);
    const sealed = read.files && await lib.sealPackage(read.files, { transports: lib.transports });
    if (!sealed?.archive) {
      const found = [...read.diagnostics, ...(sealed?.diagnostics ?? [])];
      throw new Error(`package ${dir} does not seal: ${found.map((d) => d.message).join("; ")}`);
    }
    await running.deployments.deploy(sealed.archive.bytes);
  }
  return running;
}

/**
 * When a consumer began taking `messages` preloaded on a queue: resolves to
 * the moment `ready` (the broker's count of messages ready on it) first
 * drops below `messages`, after calling `onStart`. Start it before the
 * engine whose consumer it watches.
 */
export async function firstTaken(
  ready: () => Promise<number>,
  messages: number,
  onStart: () => void = () => {},
): Promise<number> {
  while (await ready() >= messages) await new Promise((r) => setTimeout(r, 2));
  onStart();
  return performance.now();
}

/**
 * Messages per second an engine worked off `messages` preloaded on-persist
 * messages at: from `since` ({@link firstTaken}) to the moment every one
 * has run and no capture is pending, by the engine's inbox polled through
 * `query` (keep it out of any statement count). A run leaves one row
 * besides the message's capture (keyed `@<its key>`): its dedup record.
 * The broker, not the inbox, starts the clock: the embedded database
 * answers a poll only between the engine's own transactions.
 */
export async function inboxRate(
  query: RunningEngine["database"]["query"],
  messages: number,
  since: Promise<number>,
): Promise<number> {
  for (;;) {
    const { ran, pending } = (await query<{ ran: number; pending: number }>(
      `select (count(*) filter (where event_id not like '@%'))::int as ran,
              (count(*) filter (where state = 'pending'))::int as pending
         from inbox`,
    )).rows[0];
    if (ran >= messages && pending === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const end = performance.now();
  return messages / ((end - await since) / 1000);
}

/** The queue channel of {@link statelessChannelPackage}. */
export interface BenchChannel {
  readonly name: string;
  readonly transport: string;
  /** The channel's `options:`, each written as `key: value` (values are YAML scalars). */
  readonly options: Readonly<Record<string, string | number>>;
}

/**
 * Writes a package whose on-persist `channel` starts a process that ends at
 * once (a stateless flow) into a new temporary directory, and returns it.
 */
export async function statelessChannelPackage(
  module: string,
  channel: BenchChannel,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: `sutra-bench-${module}-` });
  await Deno.mkdir(`${dir}/bpmn`);
  await Deno.writeTextFile(
    `${dir}/package.yaml`,
    `labels:\n  tenant: default\n  module: ${module}\n  version: 1.0.0\nengine:\n  minContract: 1\n`,
  );
  const options = Object.entries(channel.options).map(([k, v]) =>
    `      ${k}: ${JSON.stringify(v)}\n`
  );
  await Deno.writeTextFile(
    `${dir}/channels.yaml`,
    `channels:
  - name: ${channel.name}
    transport: ${channel.transport}
    codec: urn:sutra:codec:json
    ack-mode: on-persist
    options:
${options.join("")}`,
  );
  await Deno.writeTextFile(
    `${dir}/bpmn/stateless.bpmn`,
    `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0"
                  id="${module}" targetNamespace="urn:bench:${module}">
  <bpmn:process id="stateless" isExecutable="true">
    <bpmn:startEvent id="In"><bpmn:extensionElements><q:source channel="${channel.name}"/></bpmn:extensionElements></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="In" targetRef="Done"/>
    <bpmn:endEvent id="Done"/>
  </bpmn:process>
</bpmn:definitions>
`,
  );
  return dir;
}

/** Options for {@link channelRate}. */
export interface ChannelRateOptions {
  /** The package's module name (also its temporary directory's prefix). */
  readonly module: string;
  readonly channel: BenchChannel;
  readonly messages: number;
  /** A PostgreSQL server URL for the engine's state (a fresh schema, dropped after); in-memory PGlite without it. */
  readonly database?: string;
  /** Settings the channel's `env:` options name. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * When the broker saw the consumer start taking ({@link firstTaken}, started
   * before this call), timed to the last run by {@link inboxRate}; or a
   * measure of its own on the running engine.
   */
  readonly clock: Promise<number> | ((engine: RunningEngine) => Promise<number>);
}

/**
 * The engine half of a transport line: writes a {@link statelessChannelPackage},
 * starts an engine on it with instance retention PT0S, measures messages per
 * second by `clock`, then stops the engine and removes the package and schema.
 */
export async function channelRate(o: ChannelRateOptions): Promise<number> {
  const schema = freshSchema();
  const dir = await statelessChannelPackage(o.module, o.channel);
  try {
    const engine = await startBenchEngine({
      env: {
        ...o.env,
        SUTRA_INSTANCE_RETENTION: "PT0S",
        ...(o.database
          ? { SUTRA_DATASOURCE_URL: o.database, SUTRA_DATASOURCE_SCHEMA: schema }
          : { SUTRA_DATASOURCE_URL: "memory://" }),
      },
      packages: [dir],
    });
    try {
      return typeof o.clock === "function"
        ? await o.clock(engine)
        : await inboxRate(engine.database.query.bind(engine.database), o.messages, o.clock);
    } finally {
      await engine.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    if (o.database) await dropSchema(o.database, schema);
  }
}

/** A schema name no other run uses, for one bench run on a shared server. */
export function freshSchema(): string {
  return `sutra_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/**
 * Single-row INSERT commits per second through the engine's own driver, into
 * a new table of `schema` on the server `url`: the floor an engine line is
 * held against, at the same concurrency. By default each insert is one
 * autocommit statement, the cheapest way to make one row durable;
 * `transaction: true` wraps each in BEGIN/COMMIT, the least any engine
 * transaction costs (one round trip more).
 */
export async function rawInsertCommits(
  url: string,
  options: LoadOptions & { readonly schema: string; readonly transaction?: boolean },
): Promise<number> {
  const { openDatabase } = await import("../engine/persistence/mod.ts");
  const db = await openDatabase(url, { schema: options.schema });
  const insert = "insert into bench_raw (id, body) values ($1, $2)";
  try {
    await db.exec("create table bench_raw (id text primary key, body jsonb not null)");
    return await throughput(options, async (w, i) => {
      const params = [`${w}-${i}`, { w, i }];
      if (options.transaction) await db.transaction((tx) => tx.query(insert, params));
      else await db.query(insert, params);
    });
  } finally {
    await db.close();
  }
}

/** Drops `schema` and everything in it on the server `url`. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const { openDatabase } = await import("../engine/persistence/mod.ts");
  const admin = await openDatabase(url, { maxConnections: 1 });
  try {
    await admin.exec(`drop schema if exists "${schema}" cascade`);
  } finally {
    await admin.close();
  }
}

/** The JSON lines of one bench, each naming it. */
export interface BenchLines {
  /** A throughput line: the scenario, its rounded rate, the bench's common fields, then `extra`. */
  rate(scenario: string, perSecond: number, extra?: Readonly<Record<string, unknown>>): void;
  /** Any other line: `fields` after the bench's name. */
  record(fields: Readonly<Record<string, unknown>>): void;
  /** A ratio line: `engine / raw`, rounded to three decimals. */
  ratio(scenario: string, engine: number, raw: number): void;
}

/** Prints the JSON lines of the bench `bench`; `common` goes on every throughput line. */
export function benchLines(bench: string, common: Readonly<Record<string, unknown>>): BenchLines {
  return {
    rate: (scenario, perSecond, extra = {}) =>
      console.log(JSON.stringify({
        bench,
        scenario,
        perSecond: Math.round(perSecond),
        ...common,
        ...extra,
      })),
    record: (fields) => console.log(JSON.stringify({ bench, ...fields })),
    ratio: (scenario, engine, raw) =>
      console.log(
        JSON.stringify({ bench, scenario, ratio: Math.round((engine / raw) * 1000) / 1000 }),
      ),
  };
}
