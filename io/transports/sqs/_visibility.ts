/**
 * Keeping messages in hand invisible. A received message is hidden from
 * other consumers for the visibility timeout only; a message the engine
 * still works on (a capture queued behind others, an on-complete hold whose
 * instance runs for minutes) must not reappear meanwhile, or a second
 * consumer would take it and the effect would double. Every third of the
 * timeout, each message held is given the full timeout again
 * (`ChangeMessageVisibilityBatch`, ten at a time).
 *
 * @module
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { errorMessage } from "../../../engine/core/errors.ts";
import type { Logger } from "../../../engine/core/log.ts";

/** Options for {@link VisibilityKeeper}. */
export interface VisibilityKeeperOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** The timeout each renewal sets, whole seconds. */
  readonly visibilitySeconds: number;
  readonly logger: Logger;
  /** The channel, for the logs. */
  readonly channel: string;
}

/** Renews the visibility of the messages held, until each is let go. */
export class VisibilityKeeper {
  readonly #o: VisibilityKeeperOptions;
  /** Receipt handles held, by a per-hold id. */
  readonly #held = new Map<number, string>();
  #next = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #renewing: Promise<void> = Promise.resolve();

  constructor(options: VisibilityKeeperOptions) {
    this.#o = options;
  }

  /**
   * Holds a message by its receipt handle; answers the function that lets
   * it go, which resolves once no renewal that could still touch it is in
   * flight (so a delete or a new visibility set afterwards is the last word).
   */
  hold(receiptHandle: string): () => Promise<void> {
    const id = this.#next++;
    this.#held.set(id, receiptHandle);
    this.#timer ??= setInterval(
      () => this.#renewing = this.#renewing.then(() => this.#renew()),
      (this.#o.visibilitySeconds * 1000) / 3,
    );
    return () => {
      this.#held.delete(id);
      if (this.#held.size === 0) this.#idle();
      return this.#renewing;
    };
  }

  /** Messages held right now. */
  get size(): number {
    return this.#held.size;
  }

  /** Stops renewing (what is still held becomes visible when its timeout runs out). */
  async stop(): Promise<void> {
    this.#held.clear();
    this.#idle();
    await this.#renewing;
  }

  #idle(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #renew(): Promise<void> {
    const handles = [...this.#held.values()];
    for (let from = 0; from < handles.length; from += 10) {
      const batch = handles.slice(from, from + 10);
      try {
        const out = await this.#o.client.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: this.#o.queueUrl,
            Entries: batch.map((ReceiptHandle, n) => ({
              Id: String(n),
              ReceiptHandle,
              VisibilityTimeout: this.#o.visibilitySeconds,
            })),
          }),
        );
        // A handle settled meanwhile fails harmlessly; others are worth a line.
        for (const failed of out.Failed ?? []) {
          const handle = batch[Number(failed.Id)];
          if ([...this.#held.values()].includes(handle)) {
            this.#o.logger.warn("a held message's visibility could not be renewed", {
              channel: this.#o.channel,
              error: `${failed.Code}: ${failed.Message ?? ""}`,
            });
          }
        }
      } catch (error) {
        this.#o.logger.warn("held messages' visibility could not be renewed", {
          code: "SUTRA.BROKER.CONNECTION_LOST",
          channel: this.#o.channel,
          error: errorMessage(error),
        });
      }
    }
  }
}
