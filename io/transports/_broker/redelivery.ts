/**
 * The redelivery budget: how many times one message may be handed to the
 * engine before it is dead-lettered instead of requeued again. It stops a
 * message whose transient refusal never clears (or that crashes the engine
 * every time) from looping forever.
 *
 * The count comes from the broker when it keeps one (RabbitMQ quorum
 * queues' `x-delivery-count` header, AMQP 1.0's header `delivery-count`):
 * that survives engine restarts and is shared by every replica. Otherwise
 * (classic queues) the budget counts in process, per message id, starting
 * at 1 for a first delivery and at 2 for one the broker flags
 * `redelivered`. Limits of the in-process count: it restarts at each engine
 * restart and each replica counts on its own, so a message can be seen up
 * to `budget × replicas` times (plus once per restart) before it is
 * dead-lettered. A transport should key a message without an id by its
 * content. Use a quorum queue where an exact bound matters.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";

/** What the broker says about a delivery's history. */
export interface DeliveryHistory {
  /** A stable id of the message (message-id / idempotency key), when it has one. */
  readonly messageId?: string;
  /** Times delivered before this one, when the broker counts (`x-delivery-count`, AMQP 1.0 `delivery-count`). */
  readonly priorDeliveries?: number;
  /** The broker's "this was delivered before" flag. */
  readonly redelivered?: boolean;
}

/** Options for {@link RedeliveryBudget}. */
export interface RedeliveryBudgetOptions {
  /** Deliveries allowed in all (the first included); at least 1. */
  readonly maxDeliveries: number;
  /** In-process counters kept at most (oldest forgotten first). Default 10,000. */
  readonly capacity?: number;
}

/** Counts deliveries per message and says when the budget is spent. */
export class RedeliveryBudget {
  readonly #max: number;
  readonly #capacity: number;
  readonly #seen = new Map<string, number>();

  constructor(options: RedeliveryBudgetOptions) {
    this.#max = Math.max(1, options.maxDeliveries);
    this.#capacity = options.capacity ?? 10_000;
  }

  /** Deliveries allowed in all. */
  get maxDeliveries(): number {
    return this.#max;
  }

  /** Records one delivery and answers which one it is (1 for the first). */
  count(history: DeliveryHistory): number {
    if (history.priorDeliveries !== undefined) return history.priorDeliveries + 1;
    const floor = history.redelivered ? 2 : 1;
    if (history.messageId === undefined) return floor;
    const n = Math.max(floor, (this.#seen.get(history.messageId) ?? 0) + 1);
    this.#seen.delete(history.messageId);
    this.#seen.set(history.messageId, n);
    if (this.#seen.size > this.#capacity) this.#seen.delete(this.#seen.keys().next().value!);
    return n;
  }

  /** True when a delivery numbered `n` may not be requeued again. */
  spent(n: number): boolean {
    return n >= this.#max;
  }

  /** Forgets a message that was settled for good (acked or dead-lettered). */
  forget(messageId: string | undefined): void {
    if (messageId !== undefined) this.#seen.delete(messageId);
  }

  /** The dead-letter cause for a message whose budget ran out on `last`. */
  exhausted(n: number, last: Diagnostic): Diagnostic {
    return diagnostic(
      "SUTRA.BROKER.REDELIVERY_EXHAUSTED",
      `delivered ${n} time(s), the channel's budget is ${this.#max}; last refusal ${last.code}: ${last.message}`,
      { attributes: { deliveries: n, budget: this.#max, lastCode: last.code } },
    );
  }
}
