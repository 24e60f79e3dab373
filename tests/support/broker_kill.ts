/**
 * The "engine killed mid-stream" scenario every broker transport runs: a
 * real engine child process is killed with SIGKILL part-way through 1,000
 * orders, a second one is started on the same database, and every order
 * must be applied exactly once. The broker-specific parts (how orders are
 * queued, when the broker counts as drained, what is checked on it
 * afterwards) come from a small {@link KillScenario}. The singleton
 * takeover every broker transport runs ({@link singletonTakeover}) is here
 * too: two engine children, one consumer, the holder killed.
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

/**
 * Placeholders for `sealFixture` that make a broker fixture's orders
 * channel (the one whose ack mode is `@ACK@`, its `options:` next) a
 * singleton with a two-second lease, so a takeover needs no long wait.
 */
export const SINGLETON_ORDERS: Readonly<Record<string, string>> = {
  'ack-mode: "@ACK@"\n    options:\n':
    'ack-mode: "@ACK@"\n    singleton: true\n    options:\n      lease-ttl: PT2S\n',
};

/** The broker-specific half of {@link singletonTakeover}. */
export interface SingletonScenario {
  /** Variables that let an engine reach the broker. */
  readonly env: Record<string, string>;
  /** The fixture package, its orders channel `singleton: true` with a short lease. */
  package(): Promise<SealedPackage>;
  /** Queues one order, `{ orderId }` as the body, with an identity of its own. */
  send(orderId: string): Promise<unknown>;
  /** The order ids confirmed since the last call (one sent twice shows twice). */
  confirmed(): Promise<string[]>;
  /** How many consumers the broker sees on the orders source, where it can tell. */
  consumers?(): Promise<number>;
}

/** True once `engine` logged that it took the singleton lease. */
function holdsLease(engine: EngineChild): boolean {
  return engine.records.some((r) => String(r.message).startsWith("singleton lease taken"));
}

/**
 * Two engine children on one database serve a `singleton: true` channel:
 * only one takes the lease and consumes; when it is killed with SIGKILL the
 * other takes over and consumes the next order. Each order makes one
 * instance; a confirmation may come twice (the holder may die between
 * sending it and marking it sent), nothing else does.
 */
export async function singletonTakeover(scenario: SingletonScenario): Promise<void> {
  const cwd = await Deno.makeTempDir({ prefix: "sutra-singleton-" });
  const engines: EngineChild[] = [];
  const seen: string[] = [];
  const confirmedOf = async (orderId: string) => {
    await until(async () => {
      seen.push(...await scenario.confirmed());
      return seen.includes(orderId);
    }, 30_000);
  };
  // The lease is logged as taken just before the consumer registers with the broker, and a
  // killed holder's consumer disappears once the broker notices the dead connection.
  const oneConsumer = async () => {
    if (scenario.consumers) await until(async () => await scenario.consumers!() === 1, 30_000);
  };
  try {
    await withServerDatabase(async (db, target) => {
      await deployInto(target, scenario.env, await scenario.package());
      engines.push(engineChild(target, scenario.env, cwd), engineChild(target, scenario.env, cwd));
      await Promise.all(engines.map((e) => e.started));
      await until(() => Promise.resolve(engines.some(holdsLease)), 30_000);
      const holder = engines.findIndex(holdsLease);
      const survivor = engines[1 - holder];
      await oneConsumer();
      await scenario.send("before");
      await confirmedOf("before");
      assert.equal(holdsLease(survivor), false, "both engines took the singleton lease");
      if (scenario.consumers) assert.equal(await scenario.consumers(), 1);
      await stopChild(engines[holder], "SIGKILL");
      await until(() => Promise.resolve(holdsLease(survivor)), 30_000);
      await oneConsumer();
      await scenario.send("after");
      await confirmedOf("after");
      assert.ok(seen.every((o) => o === "before" || o === "after"), seen.join(", "));
      assert.equal(await instanceCount(db), 2);
      await stopChild(survivor);
    });
  } finally {
    for (const e of engines) await stopChild(e).catch(() => {});
    await Deno.remove(cwd, { recursive: true }).catch(() => {});
  }
}
