/**
 * The "engine killed mid-stream" scenario every broker transport runs: a
 * real engine child process is killed with SIGKILL part-way through 1,000
 * orders, a second one is started on the same database, and every order
 * must be applied exactly once. The broker-specific parts (how orders are
 * queued, when the broker counts as drained, what is checked on it
 * afterwards) come from a small {@link KillScenario}.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "./engine_process.ts";
import { type ServerSchema, withServerDatabase } from "./test_database.ts";

/** How many orders the scenario queues. */
export const KILL_COUNT = 1000;

/** What a sealed package handed to `deployments.deploy` looks like. */
export type SealedPackage = Parameters<RunningEngine["deployments"]["deploy"]>[0];

/** The broker-specific half of {@link killMidStream}. */
export interface KillScenario {
  /** Variables that let an engine reach the broker (both the deployer and the children). */
  readonly env: Record<string, string>;
  /** The fixture package; deployed before anything is queued. */
  package(): Promise<SealedPackage>;
  /** Queues one order per id (`o0` … `o999`), `{ orderId }` as the body. */
  send(orderIds: readonly string[]): Promise<unknown>;
  /** Runs while the restarted engine is up, after every instance exists: waits until the broker shows every order consumed and confirmed. */
  settle(db: Database): Promise<void>;
  /** Runs after the restarted engine stopped: asserts what the broker must hold (and not hold). */
  verify(db: Database): Promise<void>;
}

/** Boots an in-process engine on `target` with `env`, deploys `sealed`, runs `run`, and stops it. */
export async function withDeployedEngine(
  target: ServerSchema,
  env: Record<string, string>,
  sealed: SealedPackage,
  run: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const engine = await bootEngine({ url: target.url, schema: target.schema, env });
  try {
    await engine.deployments.deploy(sealed);
    await run(engine);
  } finally {
    await engine.stop();
  }
}

/** {@link withDeployedEngine} on a fresh schema of the test database server. */
export function withDeployedServerEngine(
  env: Record<string, string>,
  sealed: SealedPackage,
  run: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  return withServerDatabase((_db, target) => withDeployedEngine(target, env, sealed, run));
}

/** Deploys `sealed` into `target` with a short-lived in-process engine. */
export function deployInto(
  target: ServerSchema,
  env: Record<string, string>,
  sealed: SealedPackage,
): Promise<void> {
  return withDeployedEngine(target, env, sealed, () => Promise.resolve());
}

/** Starts an engine child on `target`, tuned so a killed sibling's work is taken over within seconds. */
export function engineChild(
  target: ServerSchema,
  env: Record<string, string>,
  cwd: string,
): EngineChild {
  return spawnEngine({
    cwd,
    env: {
      ...env,
      SUTRA_DATASOURCE_URL: target.url,
      SUTRA_DATASOURCE_SCHEMA: target.schema,
      SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
      SUTRA_LOG: "info",
      // Captures the killed engine acknowledged but never ran are run again soon.
      SUTRA_INBOX_REDRIVE_AFTER: "PT1S",
      SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.5S",
      // Sends the killed engine had claimed are taken over soon, not after the default minute.
      SUTRA_OUTBOX_CLAIM_TIMEOUT: "PT2S",
    },
  });
}

/** How many instances `db` holds. */
export async function instanceCount(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from instances");
  return rows[0].n;
}

/** Signals `engine` (tolerating one already gone) and waits for it to exit. */
export async function stopChild(
  engine: EngineChild,
  signal: Deno.Signal = "SIGTERM",
): Promise<void> {
  try {
    engine.kill(signal);
  } catch {
    // already gone
  }
  await engine.exited;
}

/**
 * Kills an engine child with SIGKILL after it applied at least 200 of
 * {@link KILL_COUNT} orders, restarts one, and asserts each order made
 * exactly one instance, then the scenario's own broker checks.
 */
export async function killMidStream(scenario: KillScenario): Promise<void> {
  const cwd = await Deno.makeTempDir({ prefix: "sutra-kill-" });
  try {
    await withServerDatabase(async (db, target) => {
      await deployInto(target, scenario.env, await scenario.package());
      await scenario.send(Array.from({ length: KILL_COUNT }, (_, i) => `o${i}`));
      const first = engineChild(target, scenario.env, cwd);
      await first.started;
      await until(async () => await instanceCount(db) >= 200, 60_000);
      await stopChild(first, "SIGKILL");
      const killedAt = await instanceCount(db);
      assert.ok(killedAt < KILL_COUNT, `the kill came after all ${killedAt} messages`);
      const second = engineChild(target, scenario.env, cwd);
      try {
        await second.started;
        await until(async () => await instanceCount(db) >= KILL_COUNT, 120_000);
        await scenario.settle(db);
      } finally {
        await stopChild(second);
      }
      assert.equal(await instanceCount(db), KILL_COUNT);
      const { rows } = await db.query<{ n: number }>(
        "select count(distinct instance_id)::int as n from instances",
      );
      assert.equal(rows[0].n, KILL_COUNT);
      await scenario.verify(db);
    });
  } finally {
    await Deno.remove(cwd, { recursive: true }).catch(() => {});
  }
}
