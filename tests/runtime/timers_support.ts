/**
 * Helpers for the timer tests: a real engine on a manual clock with a
 * short poll interval, run on PGlite and on the tier-2 PostgreSQL server,
 * and small readers of the durable timer rows.
 *
 * @module
 */
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig, ManualClock } from "../../engine/core/mod.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import { type RunningEngine, startEngine } from "../../engine/runtime/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { schedulesArmed } from "../../engine/runtime/timers/mod.ts";
import { post, sealDir } from "./support.ts";

/** Where an engine keeps its database. */
export interface Target {
  readonly url: string;
  readonly schema?: string;
}

/** The virtual instant every timer test starts at. */
export const T0 = Date.parse("2026-08-06T00:00:00Z");

/** Milliseconds in an hour. */
export const HOUR = 3_600_000;

/** Starts an engine on `target` whose every temporal read goes through `clock`. */
async function bootTimed(
  target: Target,
  clock: ManualClock,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningEngine> {
  const all: Record<string, string> = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: target.url,
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    SUTRA_SHUTDOWN_GRACE_PERIOD: "PT5S",
    SUTRA_TIMERS_POLL_INTERVAL: "PT0.01S",
    // The assertions read which nodes ran from the audit journal.
    SUTRA_AUDIT_SQL: "true",
    ...(target.schema ? { SUTRA_DATASOURCE_SCHEMA: target.schema } : {}),
    ...env,
  };
  const config = await loadConfig({
    env: all,
    cwd: "/nonexistent-sutra-dir",
    registry: configKeys,
  });
  const logger = createLogger("engine", { filter: "error", write: () => {} });
  return await startEngine({ config, logger, env: all, clock });
}

/**
 * Runs `fn` on a durable PGlite directory and on a schema of the tier-2
 * PostgreSQL server (so it can stop an engine and start another on the
 * same data).
 */
export function eachTarget(name: string, fn: (target: Target) => Promise<void>): void {
  Deno.test(`${name} [pglite]`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "sutra-timers-" });
    try {
      await fn({ url: `file://${dir}` });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
  tier2Test(`${name} [postgres]`, () => withServerDatabase((_db, target) => fn(target)));
}

/**
 * Boots an engine on `target` whose clock is `clock` (see {@link bootTimed}),
 * runs `fn` with it and stops it however `fn` ends; answers what `fn` does.
 */
export async function withEngine<T>(
  boot: {
    readonly target: Target;
    readonly clock: ManualClock;
    readonly env?: Record<string, string>;
  },
  fn: (engine: RunningEngine) => Promise<T>,
): Promise<T> {
  const engine = await bootTimed(boot.target, boot.clock, boot.env);
  try {
    return await fn(engine);
  } finally {
    await engine.stop();
  }
}

/** An engine of {@link eachDeployed}, with its clock and the fixture's deployment. */
export interface DeployedRun {
  readonly engine: RunningEngine;
  readonly clock: ManualClock;
  readonly deploymentId: string;
}

/**
 * Runs `fn` on each target (see {@link eachTarget}) against one engine on a
 * manual clock at {@link T0}, with the package directory `fixture` deployed
 * and `env` added to the engine's settings.
 */
export function eachDeployed(
  name: string,
  options: { readonly fixture: string; readonly env?: Record<string, string> },
  fn: (run: DeployedRun) => Promise<void>,
): void {
  eachTarget(name, (target) => {
    const clock = new ManualClock(T0);
    return withEngine({ target, clock, env: options.env }, async (engine) => {
      const deploymentId = await deployDir(engine, options.fixture);
      await fn({ engine, clock, deploymentId });
    });
  });
}

/** Deploys the package directory `dir` and waits until its schedules are armed. */
export async function deployDir(engine: RunningEngine, dir: string): Promise<string> {
  const result = await engine.deployments.deploy(await sealDir(dir));
  if (await pollUntil(() => schedulesArmed(engine.database, engine.deployments.registry))) {
    return result.deploymentId;
  }
  assert.fail(`the schedules of ${dir} were never armed`);
}

/** Starts an instance through an HTTP channel and answers its id. */
export async function startOn(
  engine: RunningEngine,
  channel: string,
  body: unknown,
): Promise<string> {
  const answer = await post(engine, `/channels/${channel}`, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body.instances as { instanceId: string }[])[0].instanceId;
}

/** An armed timer row of an instance. */
export interface ArmedTimer {
  readonly purpose: string;
  readonly node: string;
  /** Epoch milliseconds. */
  readonly due: number;
}

/** The armed timer rows of an instance, earliest first. */
export async function timersOf(db: Database, instanceId: string): Promise<ArmedTimer[]> {
  const { rows } = await db.query<{ detail: { purpose: string }; node_id: string; due_at: Date }>(
    `select detail, node_id, due_at from waits
      where instance_id = $1 and kind = 'timer' order by due_at, wait_id`,
    [instanceId],
  );
  return rows.map((r) => ({
    purpose: r.detail.purpose,
    node: r.node_id,
    due: new Date(r.due_at).getTime(),
  }));
}

/** The instance row's status and failure code. */
export async function statusOf(
  db: Database,
  instanceId: string,
): Promise<{ status: string; code: string | null }> {
  const { rows } = await db.query<{ status: string; failure_code: string | null }>(
    "select status, failure_code from instances where instance_id = $1",
    [instanceId],
  );
  assert.equal(rows.length, 1, `no instance ${instanceId}`);
  return { status: rows[0].status, code: rows[0].failure_code };
}

/** How many audit events of `type` an instance has. */
export async function auditCount(db: Database, instanceId: string, type: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from audit_events where instance_id = $1 and event_type = $2",
    [instanceId, type],
  );
  return rows[0].n;
}

/** The nodes an instance has entered, in the order it entered them. */
export async function enteredNodes(db: Database, instanceId: string): Promise<string[]> {
  const { rows } = await db.query<{ node_id: string }>(
    "select node_id from audit_events where instance_id = $1 and event_type = 'node.entered' order by seq",
    [instanceId],
  );
  return rows.map((r) => r.node_id);
}

/**
 * Checks `ready` every 5 ms, at most `attempts` times; answers whether it
 * ever held (the caller asserts what it waited for, with the rows in hand).
 */
export async function pollUntil(ready: () => Promise<boolean>, attempts = 1000): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await ready()) return true;
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

/**
 * Moves the clock to `instant` and waits until the poller has consumed
 * every timer wait and schedule due by then (a bounded wait: a fire that
 * never happens fails the test with the rows still due).
 */
export async function advanceTo(
  engine: RunningEngine,
  clock: ManualClock,
  instant: number,
): Promise<void> {
  clock.set(instant);
  const at = new Date(instant);
  const fired = await pollUntil(async () => {
    const { rows } = await engine.database.query(
      `select wait_id from waits where kind = 'timer' and due_at <= $1
       union all select node_id from schedules where status = 'armed' and due_at <= $1`,
      [at],
    );
    return rows.length === 0;
  });
  if (!fired) assert.fail(`timers due by ${at.toISOString()} were never fired`);
}
