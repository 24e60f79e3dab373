/**
 * Coalesced acknowledgements for one AMQP 0-9-1 channel. Under load many
 * messages finish in the same group commit; acknowledging each with its
 * own `basic.ack` frame costs a frame per message. Instead, the acks
 * requested within one tick are sent together at the end of it: the
 * longest run of acknowledged deliveries at the head of the unsettled ones
 * goes as one `basic.ack` with `multiple`, covering every tag up to its
 * last; any acknowledged delivery behind one still in flight is acked on
 * its own, so a long on-complete hold never keeps later messages unacked
 * (they would fill the prefetch window and stall the channel).
 *
 * A `multiple` ack covers only unsettled tags up to its own; a delivery
 * still in flight is never among them because the run stops before it.
 * A nack (requeue) is sent at once and settles its tag, so it never sits
 * inside a run.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/** The channel operations the window drives (amqplib's `Channel` has them). */
export interface AckChannel {
  ack(message: { fields: { deliveryTag: number } }, allUpTo?: boolean): void;
  nack(message: { fields: { deliveryTag: number } }, allUpTo?: boolean, requeue?: boolean): void;
}

interface Entry {
  readonly tag: number;
  acked: boolean;
  readonly sent: PromiseWithResolvers<void>;
}

/** The unsettled deliveries of one channel, in delivery-tag order. */
export class AckWindow {
  readonly #channel: AckChannel;
  // Deliveries arrive in increasing tag order, so insertion order is tag order.
  readonly #unsettled = new Map<number, Entry>();
  #flushPending = false;

  constructor(channel: AckChannel) {
    this.#channel = channel;
  }

  /** Records a delivery as it arrives (before anything can settle it). */
  received(tag: number): void {
    this.#unsettled.set(tag, { tag, acked: false, sent: Promise.withResolvers() });
  }

  /**
   * Asks for `tag` to be acknowledged; resolves once its ack frame has been
   * written, rejects when the channel refused it (closed).
   */
  ack(tag: number): Promise<void> {
    const entry = this.#unsettled.get(tag);
    if (entry === undefined) return Promise.reject(new Error(`delivery ${tag} is not unsettled`));
    entry.acked = true;
    if (!this.#flushPending) {
      this.#flushPending = true;
      // Not `setTimeout(…, 0)`: Deno's zero-delay timer fires about 2 ms later, and every
      // unacknowledged message holds a place of the prefetch window meanwhile.
      setImmediate(() => this.#flush());
    }
    return entry.sent.promise;
  }

  /** Hands `tag` back to the broker for redelivery, at once. */
  requeue(tag: number): void {
    this.#unsettled.delete(tag);
    this.#channel.nack(frameOf(tag), false, true);
  }

  #flush(): void {
    this.#flushPending = false;
    const run: Entry[] = [];
    const alone: Entry[] = [];
    let head = true;
    for (const entry of this.#unsettled.values()) {
      if (!entry.acked) head = false;
      else if (head) run.push(entry);
      else alone.push(entry);
    }
    if (run.length > 0) this.#send(run, run[run.length - 1].tag, run.length > 1);
    for (const entry of alone) this.#send([entry], entry.tag, false);
  }

  #send(entries: Entry[], tag: number, multiple: boolean): void {
    for (const entry of entries) this.#unsettled.delete(entry.tag);
    try {
      this.#channel.ack(frameOf(tag), multiple);
      for (const entry of entries) entry.sent.resolve();
    } catch (error) {
      for (const entry of entries) entry.sent.reject(error);
    }
  }
}

function frameOf(tag: number): { fields: { deliveryTag: number } } {
  return { fields: { deliveryTag: tag } };
}
