/**
 * The data-store redo log. A step's store writes commit in the stores'
 * own transactions after the engine's commit (`dispatch/commit.ts`), so a
 * crash between the two — or a store whose commit fails — would leave the
 * instance moved on and the writes gone. To close that gap:
 *
 * - the step's commit records its writes in `store_redo` (one row: per
 *   store, each key's new value and the revision it had before), and every
 *   store transaction holding them records the step's mark in the store's
 *   own database (`StoreMark`);
 * - once the stores have committed, the row is retired (deleted in batches
 *   off the step's path);
 * - a row still there after `sutra.datastore.redo-after` (at boot, on the
 *   embedded database: at once) is replayed into each store it names by
 *   `replayInto`: a store holding the mark already has the writes, a store
 *   without it gets them back unless a key moved since, in which case the
 *   row is kept as a diverged incident;
 * - marks older than every row still pending are purged from the stores.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import type { StoreMark } from "../../core/datastore.ts";
import { errorMessage } from "../../core/errors.ts";
import { replayInto, type ReplayOutcome, type StoreRedo } from "../../datastore/mod.ts";
import type { Database, Queryable, Transaction } from "../../persistence/mod.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import type { DeploymentStores } from "../dispatch/ports.ts";
import { perDatabase } from "../dispatch/per_database.ts";

/** One step's store writes, as its commit records them. */
export interface RedoRecord {
  readonly tenant: string;
  readonly instanceId: string;
  readonly deploymentId: string;
  readonly mark: StoreMark;
  readonly writes: StoreRedo;
}

/** A fresh mark for a step about to write to its stores. */
export function newStoreMark(): StoreMark {
  // The wall clock, not the engine's: marks are bookkeeping a purge ages out.
  return { redoId: newId(), at: Date.now() };
}

/** Records `record` in the transaction `tx` of the step's commit. */
export async function recordRedo(tx: Transaction, record: RedoRecord): Promise<void> {
  await tx.query(
    `insert into store_redo (tenant, redo_id, instance_id, deployment_id, marked_at, writes)
     values ($1, $2, $3, $4, $5, $6)`,
    [
      record.tenant,
      record.mark.redoId,
      record.instanceId,
      record.deploymentId,
      record.mark.at,
      record.writes,
    ],
  );
}

const RETIRE = "delete from store_redo where redo_id = any($1::text[])";

/**
 * Deletes the rows of steps whose stores committed, many per statement:
 * the steps do not wait for it, and a row it fails to delete is found by
 * the replay, which sees the mark and deletes it then.
 */
export class RedoRetirer {
  readonly #db: Database;
  #due: string[] = [];
  #flushing: Promise<void> | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Queues the row of `redoId` for deletion. */
  retire(redoId: string): void {
    this.#due.push(redoId);
    this.#flushing ??= this.#flush();
  }

  /** Resolves once every row queued so far has been deleted (or given up). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    try {
      while (this.#due.length > 0) {
        const ids = this.#due;
        this.#due = [];
        // A row left behind costs one replay that finds its mark: nothing to report.
        await this.#db.query(RETIRE, [ids]).catch(() => {});
      }
    } finally {
      this.#flushing = undefined;
    }
  }
}

/** The retirer of `db`'s redo rows. */
export const redoRetirerOf: (db: Database) => RedoRetirer = perDatabase((db) =>
  new RedoRetirer(db)
);

/** What {@link replayLostWrites} needs. */
export interface ReplayOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  readonly stores: DeploymentStores;
  readonly logger: Logger;
  /** How old a row must be before its step is presumed dead (`sutra.datastore.redo-after`). */
  readonly olderThanMs: number;
  /** Most rows one call takes (default 100). */
  readonly limit?: number;
  /** Only rows last taken or written before this instant (a boot's own retakes are left alone). */
  readonly writtenBefore?: Date;
}

interface RedoRow {
  tenant: string;
  redo_id: string;
  instance_id: string;
  deployment_id: string;
  marked_at: string | number;
  writes: StoreRedo;
}

/**
 * Replays the rows left by steps whose stores did not commit; resolves to
 * true when it took a full batch (more may be waiting). Each row taken is
 * re-stamped, so another replica does not take it meanwhile and a row
 * whose store is unreachable is tried again a `redo-after` later.
 */
export async function replayLostWrites(o: ReplayOptions): Promise<boolean> {
  const limit = o.limit ?? 100;
  const { rows } = await o.db.query<RedoRow>(
    `update store_redo set written_at = now()
      where redo_id in (
        select redo_id from store_redo
         where diverged_at is null and written_at <= now() - make_interval(secs => $1)
           and ($3::timestamptz is null or written_at < $3)
         order by written_at limit $2 for update skip locked)
      returning tenant, redo_id, instance_id, deployment_id, marked_at, writes`,
    [o.olderThanMs / 1000, limit, o.writtenBefore ?? null],
  );
  for (const row of rows) await replayRow(o, row);
  return rows.length === limit;
}

async function replayRow(o: ReplayOptions, row: RedoRow): Promise<void> {
  const fields = { instanceId: row.instance_id, deploymentId: row.deployment_id };
  const deployment = o.registry.get(row.deployment_id);
  const set = deployment && o.stores.storesOf(deployment);
  if (!set) {
    o.logger.warn(
      `the lost data-store writes of instance ${row.instance_id} wait for a replica serving ` +
        `deployment ${row.deployment_id}`,
      { ...fields, redoId: row.redo_id },
    );
    return;
  }
  const mark = { redoId: row.redo_id, at: Number(row.marked_at) };
  const applied: string[] = [];
  const diverged: string[] = [];
  try {
    const stores = await set;
    for (const [name, writes] of Object.entries(row.writes)) {
      const store = stores.get(name);
      const outcome: ReplayOutcome | undefined = store && await replayInto(store, mark, writes);
      if (!outcome) diverged.push(`data store '${name}' is no longer declared`);
      else if (outcome.kind === "applied") applied.push(name);
      else if (outcome.kind === "diverged") {
        diverged.push(
          `data store '${name}': key '${outcome.key}' is no longer at ` +
            (outcome.from === 0
              ? "no revision (it was created since)"
              : `revision ${outcome.from}`),
        );
      }
    }
  } catch (error) {
    o.logger.warn(`replaying the lost data-store writes of instance ${row.instance_id} failed`, {
      ...fields,
      redoId: row.redo_id,
      error: errorMessage(error),
    });
    return;
  }
  if (applied.length > 0) {
    o.logger.warn(
      `replayed the lost data-store writes of instance ${row.instance_id} into ` +
        applied.map((s) => `'${s}'`).join(", "),
      { ...fields, code: "SUTRA.RUNTIME.DATASTORE.REDONE", redoId: row.redo_id },
    );
  }
  if (diverged.length === 0) {
    await o.db.query("delete from store_redo where redo_id = $1", [row.redo_id]);
    return;
  }
  const detail = `${diverged.join("; ")}: the data-store writes of instance ${row.instance_id}, ` +
    "lost in a crash, cannot be replayed over what another step wrote since";
  await o.db.query(
    "update store_redo set diverged_at = now(), detail = $2 where redo_id = $1",
    [row.redo_id, detail],
  );
  o.logger.error(detail, {
    ...fields,
    code: "SUTRA.RUNTIME.DATASTORE.REDO_DIVERGED",
    redoId: row.redo_id,
  });
}

/**
 * Replays every row an earlier run of an engine alone on its database left
 * (the embedded one), before the engine takes any message: nothing of
 * another process can be in flight there.
 */
export async function replayAtBoot(o: Omit<ReplayOptions, "olderThanMs">): Promise<void> {
  const writtenBefore = new Date();
  while (await replayLostWrites({ ...o, olderThanMs: 0, writtenBefore }));
}

/** How long a mark is kept at least: far longer than a step's two commits take. */
export const MARK_KEEP_MS = 10 * 60_000;

/**
 * Purges the marks of the stores open on this replica that no pending row
 * can need: older than the oldest pending row and than {@link MARK_KEEP_MS}.
 */
export async function purgeStoreMarks(
  o: Pick<ReplayOptions, "db" | "stores" | "logger">,
  now: number = Date.now(),
): Promise<void> {
  const oldest = await oldestPendingMark(o.db);
  const before = Math.min(now - MARK_KEEP_MS, oldest ?? Infinity);
  for (const set of await o.stores.openSets()) {
    for (const store of set.all()) {
      await store.connection.purgeMarks(before).catch((error) =>
        o.logger.warn(`purging the redo marks of data store '${store.name}' failed`, {
          error: errorMessage(error),
        })
      );
    }
  }
}

async function oldestPendingMark(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ at: string | number | null }>(
    "select min(marked_at) as at from store_redo where diverged_at is null",
  );
  return rows[0].at === null ? undefined : Number(rows[0].at);
}
