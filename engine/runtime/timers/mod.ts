/**
 * engine/runtime/timers: the timer service. One replica at a time (lease
 * `timers`) polls for armed timer waits and schedules that are due by the
 * engine clock — never the database's `now()`, so a manual clock drives
 * them — and fires each on its instance's lane: due waits as `timer` steps
 * under the instance claim, due schedules as new instances. Schedules
 * follow the deployment registry. Poisoned channel-call requests arrive as
 * prompts ({@link TimerService.poisoned}) and fail the live attempt they
 * belonged to. Tests and `sutra test simulate` drive a manual clock with
 * {@link fastForwardUntil}.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import { releaseLease, tryLease } from "../leases.ts";
import { PollLoop } from "../poll_loop.ts";
import type { RuntimeContext, RuntimeService } from "../services.ts";
import { traced, traceTrigger, type Trigger } from "../telemetry/mod.ts";
import { type PoisonedDelivery, wakePoisoned } from "./poison.ts";
import { dueSchedules, fireSchedule, reconcileSchedules } from "./schedules.ts";
import { TIMERS_BATCH_SIZE, TIMERS_POLL_INTERVAL } from "./settings.ts";
import { dueWaits, fireWait } from "./waits.ts";

export type { PoisonedDelivery } from "./poison.ts";
export { earliestDue, fastForwardUntil } from "./fast_forward.ts";
export type { FastForwardOptions, FastForwardResult } from "./fast_forward.ts";
export { TIMERS_BATCH_SIZE, TIMERS_POLL_INTERVAL } from "./settings.ts";
export { schedulesArmed } from "./schedules.ts";

/** The timer service. */
export interface TimerService extends RuntimeService {
  /** A prompt that a request delivery was poisoned (re-checked against durable rows). */
  poisoned(delivery: PoisonedDelivery): void;
}

const LEASE_ROLE = "timers";
/** How many polls a prompt whose instance was busy is retried on. */
const PROMPT_RETRIES = 20;

interface Prompt {
  readonly delivery: PoisonedDelivery & { readonly instanceId: string };
  tries: number;
}

class TimerPoller implements TimerService {
  readonly #ctx: RuntimeContext;
  readonly #batch: number;
  readonly #unsubscribe: () => void;
  readonly #loop: PollLoop;
  #reconciling: Promise<void> = Promise.resolve();
  readonly #prompts: Prompt[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #stopped = false;

  constructor(ctx: RuntimeContext) {
    this.#ctx = ctx;
    this.#batch = ctx.config.require(TIMERS_BATCH_SIZE);
    this.#unsubscribe = ctx.deployments.registry.subscribe(() => {
      this.#reconciling = this.#reconciling.then(() => this.#reconcile());
    });
    this.#loop = new PollLoop({
      pass: () => this.#pass(),
      intervalMs: ctx.config.require(TIMERS_POLL_INTERVAL),
      onError: (error) =>
        ctx.logger.error("timer poll failed", {
          code: "SUTRA.TIMER.FIRE_FAILED",
          error: String(error),
        }),
    });
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    try {
      await reconcileSchedules(this.#ctx);
    } catch (error) {
      this.#ctx.logger.error("arming or resolving schedules failed", {
        code: "SUTRA.TIMER.FIRE_FAILED",
        error: String(error),
      });
    }
  }

  /** Re-arms at boot, then polls until stopped. */
  async start(): Promise<void> {
    await this.#reconcile();
    this.#loop.start();
  }

  /** Polls when holding the lease, then retries busy prompts; true to poll again at once. */
  async #pass(): Promise<boolean> {
    const leased = await tryLease(this.#ctx.db, { role: LEASE_ROLE, owner: this.#ctx.replicaId });
    const again = leased && await this.#pollOnce();
    await this.#retryPrompts();
    return again;
  }

  /** One pass; true when a full batch fired something (so poll again at once). */
  async #pollOnce(): Promise<boolean> {
    const ctx = this.#ctx;
    const now = ctx.clock.now();
    const schedules = await dueSchedules(ctx.db, now, this.#batch);
    const fired = await Promise.all(schedules.map((row) => {
      const instanceId = newId();
      return this.#onLane(
        {
          trigger: "schedule",
          instanceId,
          attributes: { "bpm.process.id": row.processId, "sutra.timer.node": row.nodeId },
        },
        (lane) => fireSchedule(ctx, row, { instanceId, lane }),
      );
    }));
    const waits = await dueWaits(ctx.db, now, this.#batch);
    const outcomes = await Promise.all(
      waits.map((w) =>
        this.#onLane(
          {
            trigger: "timer",
            instanceId: w.instanceId,
            attributes: { "sutra.timer.purpose": w.purpose },
          },
          (lane) => fireWait(ctx, w, lane),
        )
      ),
    );
    const full = schedules.length === this.#batch || waits.length === this.#batch;
    return full && [...fired, ...outcomes].some((o) => o === "fired");
  }

  /**
   * Runs `work` on its instance's lane (a full lane holds the poll back
   * until it has room), traced as a message's delivery is: a
   * `sutra.dispatch` span naming the trigger, the lane's work a
   * `sutra.execute` span in it. A failure defers it to a later poll.
   */
  async #onLane<T extends string>(
    what: Trigger,
    work: (lane: number) => Promise<T>,
  ): Promise<T | "deferred"> {
    const key = what.instanceId;
    try {
      return await traceTrigger(this.#ctx.db, what, () =>
        this.#ctx.lanes.run(
          key,
          (lane) =>
            traced(
              "sutra.execute",
              { "bpm.instance.id": key, "sutra.lane": lane },
              () => work(lane),
            ),
        ));
    } catch (error) {
      this.#ctx.logger.error("firing a timer failed; the next poll tries again", {
        code: "SUTRA.TIMER.FIRE_FAILED",
        key,
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      return "deferred";
    }
  }

  poisoned(delivery: PoisonedDelivery): void {
    const instanceId = delivery.instanceId;
    if (instanceId === null || this.#stopped) return;
    this.#track(this.#wake({ delivery: { ...delivery, instanceId }, tries: 0 }));
  }

  async #wake(prompt: Prompt): Promise<void> {
    const outcome = await this.#onLane(
      {
        trigger: "poison",
        instanceId: prompt.delivery.instanceId,
        attributes: { "sutra.code": prompt.delivery.code },
      },
      (lane) => wakePoisoned(this.#ctx, prompt.delivery, lane),
    );
    if (outcome === "deferred" && ++prompt.tries < PROMPT_RETRIES) this.#prompts.push(prompt);
  }

  async #retryPrompts(): Promise<void> {
    const due = this.#prompts.splice(0);
    await Promise.all(due.map((p) => this.#wake(p)));
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    work.finally(() => this.#inFlight.delete(work));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe();
    await this.#loop.stop();
    await Promise.all([...this.#inFlight]);
    await this.#reconciling;
    await releaseLease(this.#ctx.db, { role: LEASE_ROLE, owner: this.#ctx.replicaId });
  }
}

/** Starts the timer service: arms the schedules of the active deployments and starts polling. */
export async function startTimers(ctx: RuntimeContext): Promise<TimerService> {
  const poller = new TimerPoller({ ...ctx, logger: ctx.logger.child("timers") });
  await poller.start();
  return poller;
}
