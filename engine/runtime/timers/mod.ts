/**
 * engine/runtime/timers: fires due timer waits and schedules.
 *
 * @module
 */
import type { RuntimeContext, RuntimeService } from "../services.ts";

/** An outbox row that was poisoned (its delivery will never happen). */
export interface PoisonedDelivery {
  readonly tenant: string;
  readonly outboxId: string;
  readonly instanceId: string | null;
  readonly deploymentId: string | null;
  readonly idempotencyKey: string;
  readonly code: string;
  readonly error: string;
}

/** The timer service. */
export interface TimerService extends RuntimeService {
  /** A prompt that a request delivery was poisoned. */
  poisoned(delivery: PoisonedDelivery): void;
}

/** Starts the timer service. */
export function startTimers(_ctx: RuntimeContext): Promise<TimerService> {
  return Promise.resolve({ stop: () => Promise.resolve(), poisoned: () => {} });
}
