/**
 * Background sweeps, on one timer per replica:
 *
 * - redrive, every tick: on-persist captures still pending (their replica
 *   died after the 202) are taken — a row is re-stamped when taken, so two
 *   replicas never run it at once — and run through the pipeline again;
 * - stuck claims (lease `sweeps`, every `sutra.instance.sweep-interval`): a
 *   claim older than the claim timeout belonged to a replica that died
 *   mid-step and is released;
 * - retention (lease `retention`, every
 *   `sutra.instance.retention-sweep-interval`): COMPLETED and TERMINATED
 *   instances past `sutra.instance.retention` are purged with their
 *   history; FAILED ones stay until someone resolves them;
 * - store writes (every tick, before the redrive): the data-store writes
 *   of steps whose stores did not commit are replayed, and (every ten
 *   minutes) the stores' marks no step can need any more are purged (see
 *   `store_redo`).
 *
 * The first tick runs them all, so a restarted replica catches up at once.
 *
 * @module
 */
import type { Logger } from "../../core/log.ts";
import type { Database } from "../../persistence/mod.ts";
import { type Capture, keyOfCapture } from "../dispatch/inbox.ts";
import { releaseLease, tryLease } from "../leases.ts";
import { PollLoop } from "../poll_loop.ts";

/** Options for {@link Sweeper}. */
export interface SweeperOptions {
  readonly db: Database;
  readonly logger: Logger;
  readonly owner: string;
  /** Runs a captured message again. */
  readonly redrive: (capture: Capture) => Promise<unknown>;
  /**
   * Replays lost data-store writes, one batch; resolves to true when the
   * batch was full. Absent: nothing to replay.
   */
  readonly replayStoreWrites?: () => Promise<boolean>;
  /** Purges store marks no step can need any more. */
  readonly purgeStoreMarks?: () => Promise<void>;
  readonly claimTimeoutMs: number;
  readonly retentionMs: number;
  /** How old a pending capture must be before it is presumed orphaned. */
  readonly orphanAfterMs: number;
  /** The tick (`sutra.engine.sweep-interval`). */
  readonly intervalMs: number;
  /** Between stuck-claim sweeps (`sutra.instance.sweep-interval`). */
  readonly claimSweepMs: number;
  /** Between retention purges (`sutra.instance.retention-sweep-interval`). */
  readonly retentionSweepMs: number;
}

/** Takes up to `limit` orphaned captures, re-stamping them so nobody else takes them meanwhile. */
export async function takeOrphanedCaptures(
  db: Database,
  options: { orphanAfterMs: number; limit: number },
): Promise<Capture[]> {
  const { rows } = await db.query<{
    tenant: string;
    channel: string;
    event_id: string;
    body: Uint8Array;
    content_type: string | null;
    headers: Record<string, string>;
  }>(
    `update inbox set received_at = now(), attempts = attempts + 1
      where (tenant, channel, event_id) in (
        select tenant, channel, event_id from inbox
         where state = 'pending' and received_at < now() - make_interval(secs => $1)
         order by received_at limit $2 for update skip locked)
      returning tenant, channel, event_id, body, content_type, headers`,
    [options.orphanAfterMs / 1000, options.limit],
  );
  return rows.map((r) => {
    // The key the transport gave the message, kept in its capture id for the dedup of the run.
    const key = keyOfCapture(r.event_id);
    return {
      tenant: r.tenant,
      eventId: r.event_id,
      delivery: {
        channel: r.channel,
        body: r.body,
        headers: r.headers,
        ...(r.content_type === null ? {} : { contentType: r.content_type }),
        ...(key === undefined ? {} : { idempotencyKey: key }),
      },
    };
  });
}

/** Releases claims older than `olderThanMs`; resolves to how many. */
export async function releaseStuckClaims(db: Database, olderThanMs: number): Promise<number> {
  const r = await db.query(
    `update instances set owner = null, claimed_at = null
      where owner is not null and claimed_at < now() - make_interval(secs => $1)`,
    [olderThanMs / 1000],
  );
  return r.rowCount;
}

/** Purges terminal instances ended before the retention window; resolves to how many. */
export async function purgeExpired(db: Database, retentionMs: number): Promise<number> {
  return await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ tenant: string; instance_id: string }>(
      `delete from instances
        where status in ('COMPLETED', 'TERMINATED')
          and ended_at < now() - make_interval(secs => $1)
        returning tenant, instance_id`,
      [retentionMs / 1000],
    );
    for (const table of ["audit_events", "aliases", "waits"]) {
      for (const r of rows) {
        await tx.query(`delete from ${table} where tenant = $1 and instance_id = $2`, [
          r.tenant,
          r.instance_id,
        ]);
      }
    }
    return rows.length;
  });
}

/** Orphaned captures one sweep tick runs again. */
const REDRIVE_BATCH = 100;

/** Between purges of the data stores' redo marks. */
const MARK_PURGE_MS = 10 * 60_000;

/** Runs the sweeps every interval until stopped. */
export class Sweeper {
  readonly #o: SweeperOptions;
  readonly #loop: PollLoop;
  readonly #lastRun = new Map<string, number>();

  constructor(options: SweeperOptions) {
    this.#o = options;
    this.#loop = new PollLoop({
      pass: () => this.sweepOnce(),
      intervalMs: options.intervalMs,
      onError: (error) => options.logger.error("sweep failed", { error: String(error) }),
    });
  }

  /**
   * One tick: the redrive, then each other sweep that is due. Resolves to true when the redrive
   * took a full batch: after a crash a backlog of captures is run batch after batch, not one batch
   * per interval.
   */
  async sweepOnce(): Promise<boolean> {
    const o = this.#o;
    // Before the redrive: a message run again should find its stores as its earlier steps left them.
    const moreWrites = await o.replayStoreWrites?.() ?? false;
    if (o.purgeStoreMarks && this.#due("marks", MARK_PURGE_MS)) await o.purgeStoreMarks();
    const orphans = await takeOrphanedCaptures(o.db, {
      orphanAfterMs: o.orphanAfterMs,
      limit: REDRIVE_BATCH,
    });
    for (const capture of orphans) await o.redrive(capture);
    // The lease is renewed on every tick, so its holder keeps it between the sweeps it runs.
    if (
      await tryLease(o.db, { role: "sweeps", owner: o.owner }) &&
      this.#due("claims", o.claimSweepMs)
    ) {
      const released = await releaseStuckClaims(o.db, o.claimTimeoutMs);
      if (released > 0) {
        o.logger.warn(`released ${released} stuck claim(s)`, { code: "SUTRA.RUNTIME.CLAIM.SWEPT" });
      }
    }
    if (
      await tryLease(o.db, { role: "retention", owner: o.owner }) &&
      this.#due("retention", o.retentionSweepMs)
    ) {
      await purgeExpired(o.db, o.retentionMs);
    }
    return moreWrites || orphans.length === REDRIVE_BATCH;
  }

  /** Whether `sweep` last ran at least `everyMs` ago; if so, it counts as running now. */
  #due(sweep: string, everyMs: number): boolean {
    const now = performance.now();
    const last = this.#lastRun.get(sweep);
    if (last !== undefined && now - last < everyMs) return false;
    this.#lastRun.set(sweep, now);
    return true;
  }

  /** Starts the timer (the first pass runs at once: a restart redrives what it left behind). */
  start(): void {
    this.#loop.start();
  }

  /** Stops the timer, waits for a pass in flight and gives the leases up. */
  async stop(): Promise<void> {
    await this.#loop.stop();
    for (const role of ["sweeps", "retention"]) {
      await releaseLease(this.#o.db, { role, owner: this.#o.owner });
    }
  }
}
