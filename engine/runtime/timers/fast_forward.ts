/**
 * Fast-forwarding a manual clock through durable timers. The driver only
 * reads the database and moves the clock: it jumps to the earliest armed
 * due instant (a timer wait or a schedule), lets the engine's own poller
 * claim and fire what came due, and re-checks the caller's condition —
 * until the condition holds or the wall-clock budget is spent. Boot the
 * engine with a short `sutra.timers.poll-interval` so a poll is cheap.
 *
 * ```ts
 * const clock = new ManualClock(Date.now());
 * const engine = await startEngine({ config, logger, clock });
 * // … start an instance that parks on a PT24H timer, then:
 * const r = await fastForwardUntil(
 *   { db: engine.database, clock, timeoutMs: 10_000 },
 *   async () => (await liveInstances(engine.database)) === 0,
 * );
 * ```
 *
 * @module
 */
import type { ManualClock } from "../../core/clock.ts";
import type { Queryable } from "../../persistence/mod.ts";

/** Options for {@link fastForwardUntil}. */
export interface FastForwardOptions {
  readonly db: Queryable;
  readonly clock: ManualClock;
  /** Wall-clock budget, milliseconds. */
  readonly timeoutMs: number;
  /** Never jump past this instant (epoch ms); due instants after it are left alone. */
  readonly until?: number;
  /** Wall-clock pause between looks at the database, milliseconds (default 5). */
  readonly tickMs?: number;
  /** Told each time the clock jumps. */
  readonly onJump?: (instant: number) => void;
}

/** What a fast-forward got to. */
export interface FastForwardResult {
  /** The condition held before the budget was spent. */
  readonly settled: boolean;
  /**
   * Timer waits that came due at a jump and were consumed (catch and
   * boundary timers, retry backoffs, call timeouts; not the internal
   * respond-and-continue hand-offs).
   */
  readonly timersFired: number;
}

/** The earliest due instant of any armed timer wait or schedule (epoch ms), if any. */
export async function earliestDue(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ due: Date | null }>(
    `select least(
       (select min(due_at) from waits where kind = 'timer'),
       (select min(due_at) from schedules where status = 'armed')) as due`,
  );
  const due = rows[0]?.due;
  return due === null || due === undefined ? undefined : new Date(due).getTime();
}

async function timerWaitsDueBy(db: Queryable, instant: number): Promise<string[]> {
  const { rows } = await db.query<{ wait_id: string }>(
    `select wait_id from waits
      where kind = 'timer' and due_at <= $1 and coalesce(detail->>'purpose', '') <> 'continue'`,
    [new Date(instant)],
  );
  return rows.map((r) => r.wait_id);
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Jumps the clock from due instant to due instant until `condition` holds or time runs out. */
export async function fastForwardUntil(
  o: FastForwardOptions,
  condition: () => boolean | Promise<boolean>,
): Promise<FastForwardResult> {
  const deadline = performance.now() + o.timeoutMs;
  const tick = o.tickMs ?? 5;
  const fired = new Set<string>();
  const result = (settled: boolean) => ({ settled, timersFired: fired.size });
  for (;;) {
    if (await condition()) return result(true);
    if (performance.now() >= deadline) return result(false);
    const due = await earliestDue(o.db);
    if (due === undefined || (o.until !== undefined && due > o.until)) {
      // Nothing to jump to: work in flight (a delivery, a relay) may still arm something.
      await pause(tick);
      continue;
    }
    const at = Math.max(due, o.clock.now());
    // Read before the jump: the poller may fire them before the next look.
    for (const id of await timerWaitsDueBy(o.db, at)) fired.add(id);
    if (at > o.clock.now()) {
      o.clock.set(at);
      o.onJump?.(at);
    }
    while (performance.now() < deadline) {
      const next = await earliestDue(o.db);
      if (next === undefined || next > o.clock.now()) break;
      await pause(tick);
    }
  }
}
