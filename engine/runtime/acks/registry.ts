/**
 * The deferred-acknowledgement registry: where a transport's promise to
 * acknowledge a delivery "once the instance has ended" waits.
 *
 * The dispatcher opens a {@link AckHold} for a delivery whose transport
 * acknowledges late, names in it each instance the delivery is about to
 * commit *before* that commit (so no relay anywhere can have completed the
 * instance first: its aliases and waits ride the same transaction), takes
 * the name back if the commit fails, and seals the hold with the delivery's
 * outcome. Every step commit that ends an instance on this replica reports
 * it through {@link DeferredAckRegistry.ended}; a sealed hold whose
 * instances have all ended is settled: acknowledged, or refused for good
 * when one of them failed.
 *
 * The registry lives in memory and is bounded. A hold that would exceed the
 * capacity evicts the oldest one, and a hold older than the timeout is
 * given up; both are settled as transient refusals, so the transport
 * redelivers and inbox deduplication answers the redelivery with the
 * instance's current state. That also covers an instance that ended on
 * another replica, whose commit this registry never hears about.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { Logger } from "../../core/log.ts";
import type { AckVerdict, DeferredAck, DeliveryOutcome } from "../../core/transport.ts";
import { type InstanceStatus, isTerminal } from "../../executor/mod.ts";

/** Options for {@link DeferredAckRegistry}. */
export interface DeferredAckRegistryOptions {
  /** Holds kept at once (`sutra.ack.deferred.capacity`); the oldest is evicted beyond it. */
  readonly capacity: number;
  /** How long a hold waits for its instances, milliseconds (`sutra.ack.deferred.timeout`). */
  readonly timeoutMs: number;
  /** How often holds are checked against the timeout, milliseconds. */
  readonly sweepMs: number;
  readonly logger: Logger;
  /** Milliseconds since the epoch (tests pass their own). */
  readonly now?: () => number;
}

/** True for the status of an instance that will never step again. */
export function hasEnded(status: string): boolean {
  // PURGED: a dedup answer for an instance retention already erased (only ended ones are).
  return status === "PURGED" || isTerminal(status as InstanceStatus);
}

interface Hold {
  readonly deferral: DeferredAck;
  readonly channel: string;
  readonly openedAt: number;
  /** Instances named and not yet ended. */
  readonly waiting: Set<string>;
  /** Instances that ended while the hold was open (a stale outcome must not revive them). */
  readonly ended: Set<string>;
  failure?: Diagnostic;
  sealed: boolean;
  settled: boolean;
}

function keyOf(tenant: string, instanceId: string): string {
  return `${tenant}\u0000${instanceId}`;
}

function failedInstance(hold: Hold, instanceId: string): Diagnostic {
  return diagnostic(
    "SUTRA.ACK.DEFERRED_NACKED",
    `instance ${instanceId} failed; the delivery is refused for good`,
    { attributes: { channel: hold.channel, instanceId } },
  );
}

/** One delivery's deferred acknowledgement, as the dispatcher drives it. */
export interface AckHold {
  /** Names an instance the delivery is about to commit; call before the commit. */
  expect(tenant: string, instanceId: string): void;
  /** Takes a name back: its commit failed. */
  forget(tenant: string, instanceId: string): void;
  /**
   * Ends the dispatch: a `settled` outcome waits for every instance it
   * names (an instance it did not commit itself, such as a deduplicated
   * redelivery's, is added here), any other outcome drops the hold unsettled.
   * Answers the instances added at sealing that are still running, so the
   * caller can check they did not end before they were named.
   */
  seal(tenant: string, outcome: DeliveryOutcome): string[];
}

/** Bounded, insertion-ordered holds, settled as the instances they wait for end. */
export class DeferredAckRegistry {
  readonly #o: DeferredAckRegistryOptions;
  readonly #now: () => number;
  /** Open holds, oldest first. */
  readonly #holds = new Set<Hold>();
  readonly #byInstance = new Map<string, Set<Hold>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: DeferredAckRegistryOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Holds open right now. */
  get size(): number {
    return this.#holds.size;
  }

  /** Opens a hold for one delivery on `channel`, evicting the oldest one when full. */
  open(deferral: DeferredAck, channel: string): AckHold {
    while (this.#holds.size >= this.#o.capacity) {
      this.#release(
        this.#holds.values().next().value!,
        "SUTRA.ACK.DEFERRED_OVERFLOW",
        `the engine holds ${this.#o.capacity} deferred acknowledgements (sutra.ack.deferred.capacity); the oldest was released for redelivery`,
      );
    }
    const hold: Hold = {
      deferral,
      channel,
      openedAt: this.#now(),
      waiting: new Set(),
      ended: new Set(),
      sealed: false,
      settled: false,
    };
    this.#holds.add(hold);
    return {
      expect: (tenant, instanceId) => this.#expect(hold, keyOf(tenant, instanceId)),
      forget: (tenant, instanceId) => this.#unindex(hold, keyOf(tenant, instanceId)),
      seal: (tenant, outcome) => this.#seal(hold, tenant, outcome),
    };
  }

  /** Reports an instance that reached `status` in a step this replica committed. */
  ended(tenant: string, instanceId: string, status: string): void {
    if (this.#byInstance.size === 0 || !hasEnded(status)) return;
    const key = keyOf(tenant, instanceId);
    const holds = this.#byInstance.get(key);
    if (!holds) return;
    this.#byInstance.delete(key);
    for (const hold of holds) {
      hold.waiting.delete(key);
      hold.ended.add(key);
      if (status === "FAILED") hold.failure ??= failedInstance(hold, instanceId);
      this.#settleIfDone(hold);
    }
  }

  /** Gives up every hold older than the timeout. */
  sweep(): void {
    const cutoff = this.#now() - this.#o.timeoutMs;
    for (const hold of this.#holds) {
      if (hold.openedAt > cutoff) break;
      this.#release(
        hold,
        "SUTRA.ACK.DEFERRED_TIMEOUT",
        `the instance did not end within ${this.#o.timeoutMs} ms (sutra.ack.deferred.timeout); released for redelivery`,
      );
    }
  }

  /** Gives a hold up unacknowledged, for the transport to redeliver. */
  #release(hold: Hold, code: string, message: string): void {
    this.#o.logger.warn(message, { code, channel: hold.channel, waitingFor: hold.waiting.size });
    const released = diagnostic(code, message, { attributes: { channel: hold.channel } });
    this.#settle(hold, { kind: "nack", permanent: false, diagnostic: released });
  }

  /** Sweeps on the configured interval until {@link stop}. */
  start(): void {
    this.#timer ??= setInterval(() => this.sweep(), this.#o.sweepMs);
  }

  /** Stops sweeping and drops every hold unsettled (their transports redeliver). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#holds.clear();
    this.#byInstance.clear();
  }

  #expect(hold: Hold, key: string): void {
    if (hold.settled || hold.waiting.has(key) || hold.ended.has(key)) return;
    hold.waiting.add(key);
    let holds = this.#byInstance.get(key);
    if (!holds) this.#byInstance.set(key, holds = new Set());
    holds.add(hold);
  }

  #unindex(hold: Hold, key: string): void {
    hold.waiting.delete(key);
    const holds = this.#byInstance.get(key);
    holds?.delete(hold);
    if (holds?.size === 0) this.#byInstance.delete(key);
  }

  #seal(hold: Hold, tenant: string, outcome: DeliveryOutcome): string[] {
    if (hold.settled) return [];
    if (outcome.kind !== "settled") {
      this.#drop(hold);
      return [];
    }
    const added: string[] = [];
    for (const { instanceId, status } of outcome.instances) {
      const key = keyOf(tenant, instanceId);
      if (hold.ended.has(key)) continue;
      if (hasEnded(status)) {
        this.#unindex(hold, key);
        hold.ended.add(key);
        if (status === "FAILED") hold.failure ??= failedInstance(hold, instanceId);
      } else if (!hold.waiting.has(key)) {
        this.#expect(hold, key);
        added.push(instanceId);
      }
    }
    hold.sealed = true;
    if (hold.waiting.size > 0) {
      this.#o.logger.debug("acknowledgement deferred until the instance ends", {
        code: "SUTRA.ACK.DEFERRED_REGISTERED",
        channel: hold.channel,
        waitingFor: hold.waiting.size,
      });
    }
    this.#settleIfDone(hold);
    return added;
  }

  #settleIfDone(hold: Hold): void {
    if (!hold.sealed || hold.settled || hold.waiting.size > 0) return;
    if (hold.failure) {
      this.#o.logger.info(hold.failure.message, {
        code: "SUTRA.ACK.DEFERRED_NACKED",
        channel: hold.channel,
      });
      this.#settle(hold, { kind: "nack", permanent: true, diagnostic: hold.failure });
      return;
    }
    this.#o.logger.debug("deferred acknowledgement given", {
      code: "SUTRA.ACK.DEFERRED_ACKED",
      channel: hold.channel,
    });
    this.#settle(hold, { kind: "ack" });
  }

  #settle(hold: Hold, verdict: AckVerdict): void {
    this.#drop(hold);
    try {
      hold.deferral.settle(verdict);
    } catch (error) {
      // A transport's fault must not reach the commit that ended the instance.
      this.#o.logger.error("a transport failed to settle a deferred acknowledgement", {
        channel: hold.channel,
        error: String(error),
      });
    }
  }

  #drop(hold: Hold): void {
    hold.settled = true;
    this.#holds.delete(hold);
    for (const key of hold.waiting) this.#unindex(hold, key);
  }
}
