/**
 * `sutra test simulate`: boots a real engine in this process on a free
 * loopback port with a manual clock, deploys every package under a
 * directory, fast-forwards the clock through the durable timers and
 * schedules (the engine's own poller fires them), and prints one JSON
 * summary on stdout. Progress and engine warnings go to stderr.
 *
 * It refuses (exit 2) a database that already holds instances unless
 * `--allow-existing-data` says that is intended: fast-forwarding would
 * fire real instances' timers early.
 *
 * @module
 */
import "../io/codecs/mod.ts";
import "../io/datastores/mod.ts";
import "../io/secrets/mod.ts";
import "../io/transports/mod.ts";
import {
  configKeys,
  createLogger,
  diagnostic,
  formatDiagnostic,
  formatDurationMillis,
  loadConfig,
  ManualClock,
  parseDurationMillis,
} from "../engine/core/mod.ts";
import { transports } from "../engine/core/transport.ts";
import { ARCHIVE_EXTENSION, readPackageDir, sealPackage } from "../engine/package/mod.ts";
import { type Database, openDatabase } from "../engine/persistence/mod.ts";
import { DATASOURCE_SCHEMA, type RunningEngine, startEngine } from "../engine/runtime/mod.ts";
import { earliestDue, fastForwardUntil, schedulesArmed } from "../engine/runtime/timers/mod.ts";
import {
  type CliIo,
  cliLog,
  type Command,
  DiagnosticError,
  EXIT_USAGE,
  UsageError,
  type Verbosity,
} from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";

const USAGE =
  `Usage: sutra test simulate --deployments DIR --datasource URL (--advance DUR | --until-quiescent)
                          [--allow-existing-data] [--timeout DUR]

Boots a real engine with a virtual clock on a free loopback port against
the datasource, deploys every package under DIR (sealed ${ARCHIVE_EXTENSION}
archives, package directories, or example folders holding a package/
directory), and fast-forwards the clock from one armed timer or schedule to
the next; the engine's own timer poller fires each one.

  --deployments DIR       the packages to deploy (required)
  --datasource URL        the engine database (required): postgres://…,
                          file://DIR for embedded, memory:// for throwaway
  --advance DUR           move the virtual clock forward by this ISO-8601
                          duration, firing everything due on the way
  --until-quiescent       run until no timer is armed, no schedule is armed
                          and no instance is live or failed
  --allow-existing-data   accept a database that already holds instances
  --timeout DUR           wall-clock budget (default PT60S)

Progress goes to stderr; one JSON summary goes to stdout. Exits 0 when the
run settled, 1 when the wall-clock budget ran out (timedOut: true), 2 on a
usage error or a database that already holds instances.`;

/** What a run was asked to do. */
export interface SimulateOptions {
  readonly deployments: string;
  readonly datasource: string;
  /** Milliseconds to advance, or `until-quiescent`. */
  readonly mode: { readonly advance: number } | "until-quiescent";
  readonly allowExistingData: boolean;
  /** Wall-clock budget, milliseconds. */
  readonly timeoutMs: number;
}

/** The JSON summary printed on stdout. */
export interface SimulateSummary {
  readonly mode: "advance" | "until-quiescent";
  readonly deployments: string;
  readonly allowExistingData: boolean;
  readonly timedOut: boolean;
  readonly quiescent: boolean;
  readonly preExistingInstances: number;
  readonly virtualStart: string;
  readonly virtualEnd: string;
  readonly virtualSecondsAdvanced: number;
  readonly wallSeconds: number;
  readonly instancesStarted: number;
  readonly instancesCompleted: number;
  readonly instancesFailed: number;
  readonly instancesTerminated: number;
  readonly instancesLive: number;
  readonly timersFired: number;
  readonly schedulesFired: number;
}

function durationFlag(name: string, value: string): number {
  const millis = parseDurationMillis(value);
  if (millis === undefined) {
    throw new UsageError(`--${name} takes an ISO-8601 duration such as PT24H, got '${value}'`);
  }
  return millis;
}

function parseOptions(args: readonly string[]): SimulateOptions {
  const parsed = parseCommandArgs(args, {
    deployments: { type: "string" },
    datasource: { type: "string" },
    advance: { type: "string" },
    "until-quiescent": { type: "boolean" },
    "allow-existing-data": { type: "boolean" },
    timeout: { type: "string" },
  });
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
  }
  const deployments = stringFlag(parsed, "deployments");
  if (!deployments) throw new UsageError("--deployments DIR is required");
  // A run without a database has no durable timers to advance.
  const datasource = stringFlag(parsed, "datasource");
  if (!datasource) throw new UsageError("--datasource URL is required");
  const advance = stringFlag(parsed, "advance");
  const untilQuiescent = parsed.flags["until-quiescent"] === true;
  if ((advance === undefined) === !untilQuiescent) {
    throw new UsageError("give exactly one of --advance DUR and --until-quiescent");
  }
  const timeout = stringFlag(parsed, "timeout");
  return {
    deployments,
    datasource,
    mode: advance === undefined ? "until-quiescent" : { advance: durationFlag("advance", advance) },
    allowExistingData: parsed.flags["allow-existing-data"] === true,
    timeoutMs: timeout === undefined ? 60_000 : durationFlag("timeout", timeout),
  };
}

/** Directory entries as sorted names, or a diagnostic when it cannot be read. */
async function entries(dir: string): Promise<Deno.DirEntry[]> {
  try {
    const found: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(dir)) found.push(e);
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNREADABLE",
      `cannot read the deployments directory ${dir}: ${
        error instanceof Error ? error.message : error
      }`,
      { attributes: { path: dir } },
    ));
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** The package directory at `dir` (itself, or its `package/` folder), if any. */
async function packageDirOf(dir: string): Promise<string | undefined> {
  if (await isFile(`${dir}/package.yaml`)) return dir;
  if (await isFile(`${dir}/package/package.yaml`)) return `${dir}/package`;
  return undefined;
}

async function sealDir(dir: string): Promise<Uint8Array> {
  const read = await readPackageDir(dir);
  const sealed = read.files && await sealPackage(read.files, { transports });
  if (!sealed?.archive) {
    throw new DiagnosticError([...read.diagnostics, ...(sealed?.diagnostics ?? [])]);
  }
  return sealed.archive.bytes;
}

/** Every package under `dir`, as archive bytes with a name for progress lines. */
export async function collectPackages(
  dir: string,
): Promise<{ name: string; bytes: Uint8Array }[]> {
  const own = await packageDirOf(dir);
  if (own) return [{ name: dir, bytes: await sealDir(own) }];
  const found: { name: string; bytes: Uint8Array }[] = [];
  for (const e of await entries(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isFile && e.name.endsWith(ARCHIVE_EXTENSION)) {
      found.push({ name: path, bytes: await Deno.readFile(path) });
      continue;
    }
    const packageDir = e.isDirectory ? await packageDirOf(path) : undefined;
    if (packageDir) found.push({ name: path, bytes: await sealDir(packageDir) });
  }
  if (found.length === 0) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.SIMULATE.NO_DEPLOYMENTS",
      `${dir} holds no ${ARCHIVE_EXTENSION} archive and no package directory`,
      { attributes: { path: dir } },
    ));
  }
  return found;
}

/** How many instances the database holds (0 when it has no engine schema yet). */
async function countInstances(url: string, schema: string | undefined): Promise<number> {
  const db = await openDatabase(url, { schema });
  try {
    const { rows } = await db.query<{ present: string | null }>(
      "select to_regclass('instances')::text as present",
    );
    if (rows[0]?.present === null || rows[0]?.present === undefined) return 0;
    const counted = await db.query<{ n: number }>("select count(*)::int as n from instances");
    return counted.rows[0].n;
  } finally {
    await db.close();
  }
}

interface InstanceCounts {
  started: number;
  completed: number;
  failed: number;
  terminated: number;
  live: number;
}

async function countsSince(db: Database, before: ReadonlySet<string>): Promise<InstanceCounts> {
  const { rows } = await db.query<{ instance_id: string; status: string }>(
    "select instance_id, status from instances",
  );
  const counts = { started: 0, completed: 0, failed: 0, terminated: 0, live: 0 };
  for (const r of rows) {
    if (before.has(r.instance_id)) continue;
    counts.started++;
    if (r.status === "COMPLETED") counts.completed++;
    else if (r.status === "FAILED") counts.failed++;
    else if (r.status === "TERMINATED") counts.terminated++;
    else counts.live++;
  }
  return counts;
}

/** No armed timer, no armed schedule, no live instance, and no instance of this run FAILED. */
async function isQuiescent(db: Database, before: ReadonlySet<string>): Promise<boolean> {
  const { rows } = await db.query<{ armed: number }>(
    `select ((select count(*) from waits where kind = 'timer') +
             (select count(*) from schedules where status = 'armed') +
             (select count(*) from instances where status in ('RUNNING', 'SUSPENDED')))::int as armed`,
  );
  if (rows[0].armed > 0) return false;
  return (await countsSince(db, before)).failed === 0;
}

async function schedulesFired(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select coalesce(sum(fires), 0)::int as n from schedules",
  );
  return rows[0].n;
}

/** The engine configuration of a run: the caller's settings, with the datasource, port and tick fixed. */
async function simulationConfig(o: SimulateOptions) {
  const overrides: Record<string, string> = {
    SUTRA_DATASOURCE_URL: o.datasource,
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    // A short tick keeps each jump cheap: the poller claims what came due at once.
    SUTRA_TIMERS_POLL_INTERVAL: "PT0.01S",
  };
  const env = { ...Deno.env.toObject(), ...overrides };
  return { env, config: await loadConfig({ env, cwd: Deno.cwd(), registry: configKeys }) };
}

/** Runs one simulation; resolves to the summary. */
export async function simulate(o: SimulateOptions, io: CliIo): Promise<SimulateSummary> {
  const log = cliLog(io, "test simulate");
  log.debug(
    `deployments ${o.deployments}; ${
      o.mode === "until-quiescent" ? "until quiescent" : `advance ${o.mode.advance} ms`
    }; timeout ${o.timeoutMs} ms; allow existing data ${o.allowExistingData}`,
  );
  const packages = await log.timed("collecting packages", () => collectPackages(o.deployments));
  for (const p of packages) log.info(`read ${p.name} (${p.bytes.length} bytes sealed)`);
  const { env, config } = await simulationConfig(o);
  const preExisting = await countInstances(o.datasource, config.get(DATASOURCE_SCHEMA));
  if (preExisting > 0 && !o.allowExistingData) {
    throw new ExistingDataError(preExisting);
  }
  const clock = new ManualClock(Date.now());
  const virtualStart = clock.now();
  const wall = performance.now();
  // The booted engine's own JSON logs follow the CLI's verbosity.
  const logger = createLogger("simulate", {
    filter: ENGINE_LOG_FILTER[io.verbosity ?? "normal"],
    write: (line) => io.stderr(line + "\n"),
  });
  const engine: RunningEngine = await log.timed(
    "starting the engine",
    () => startEngine({ config, logger, env, clock }),
  );
  try {
    const { rows } = await engine.database.query<{ instance_id: string }>(
      "select instance_id from instances",
    );
    const before = new Set(rows.map((r) => r.instance_id));
    const firedBefore = await schedulesFired(engine.database);
    for (const p of packages) {
      const result = await engine.deployments.deploy(p.bytes);
      log.progress(`deployed ${p.name}: ${result.slot} ${result.deploymentId.slice(0, 12)}`);
    }
    // Schedules are armed just after a deployment activates; wait for them.
    while (!(await schedulesArmed(engine.database, engine.deployments.registry))) {
      if (performance.now() - wall > o.timeoutMs) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const target = o.mode === "until-quiescent" ? undefined : virtualStart + o.mode.advance;
    const run = await fastForwardUntil({
      db: engine.database,
      clock,
      timeoutMs: o.timeoutMs,
      until: target,
      onJump: (at) => log.progress(`virtual clock → ${new Date(at).toISOString()}`),
    }, async () => {
      if (target === undefined) return await isQuiescent(engine.database, before);
      const due = await earliestDue(engine.database);
      return due === undefined || due > target;
    });
    if (target !== undefined && run.settled && clock.now() < target) clock.set(target);
    const counts = await countsSince(engine.database, before);
    const summary: SimulateSummary = {
      mode: target === undefined ? "until-quiescent" : "advance",
      deployments: o.deployments,
      allowExistingData: o.allowExistingData,
      timedOut: !run.settled,
      quiescent: await isQuiescent(engine.database, before),
      preExistingInstances: preExisting,
      virtualStart: new Date(virtualStart).toISOString(),
      virtualEnd: new Date(clock.now()).toISOString(),
      virtualSecondsAdvanced: (clock.now() - virtualStart) / 1000,
      wallSeconds: Math.round(performance.now() - wall) / 1000,
      instancesStarted: counts.started,
      instancesCompleted: counts.completed,
      instancesFailed: counts.failed,
      instancesTerminated: counts.terminated,
      instancesLive: counts.live,
      timersFired: run.timersFired,
      schedulesFired: (await schedulesFired(engine.database)) - firedBefore,
    };
    log.progress(
      `${summary.timedOut ? "timed out" : "settled"} after ${
        formatDurationMillis(clock.now() - virtualStart)
      } of virtual time`,
    );
    return summary;
  } finally {
    await engine.stop();
  }
}

/** The engine log filter for each CLI verbosity. */
const ENGINE_LOG_FILTER: Readonly<Record<Verbosity, string>> = {
  quiet: "error",
  normal: "warn",
  info: "info",
  debug: "debug",
  trace: "trace",
};

/** The database already holds instances and the run was not told to accept that. */
class ExistingDataError extends Error {
  constructor(readonly count: number) {
    super(`the database already holds ${count} instance(s)`);
    this.name = "ExistingDataError";
  }
}

async function runSimulate(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseOptions(args);
  let summary: SimulateSummary;
  try {
    summary = await simulate(options, io);
  } catch (error) {
    if (!(error instanceof ExistingDataError)) throw error;
    io.stderr(
      formatDiagnostic(diagnostic(
        "SUTRA.SIMULATE.EXISTING_DATA",
        `${error.message}; fast-forwarding would fire their timers early (pass --allow-existing-data to accept it)`,
        { attributes: { instances: error.count } },
      )) + "\n",
    );
    return EXIT_USAGE;
  }
  io.stdout(JSON.stringify(summary, null, 2) + "\n");
  return summary.timedOut ? 1 : 0;
}

/** The `test` command group (`sutra test simulate …`). */
export const testCommand: Command = {
  name: "test",
  summary: "Fast-forward durable timers on a virtual clock (test simulate)",
  usage: USAGE,
  documentOutput: true,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [sub, ...rest] = args;
    if (sub !== "simulate") {
      throw new UsageError(
        sub === undefined ? "name a subcommand: simulate" : `unknown subcommand '${sub}'`,
      );
    }
    return await runSimulate(rest, io);
  },
};
