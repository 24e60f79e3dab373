/**
 * Deleting settled messages ten at a time. Messages settle one by one, but
 * many settle within the same moment under load: each delete waits for the
 * current turn of the event loop to end, and the deletes gathered by then
 * go out as `DeleteMessageBatch` requests of up to ten entries. Every
 * caller still hears about its own message (an entry SQS refused rejects
 * that caller only).
 *
 * @module
 */
import { DeleteMessageBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { setImmediate } from "node:timers";

interface Pending {
  readonly receiptHandle: string;
  resolve(): void;
  reject(error: Error): void;
}

/** Batches the deletes of one queue. */
export class DeleteBatcher {
  readonly #client: SQSClient;
  readonly #queueUrl: string;
  #pending: Pending[] = [];
  #flushing = false;

  constructor(client: SQSClient, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  /** Deletes the message; resolves once SQS confirmed it, rejects with SQS's reason. */
  delete(receiptHandle: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ receiptHandle, resolve, reject });
      if (this.#pending.length >= 10) this.#flush();
      else if (!this.#flushing) {
        // Not `setTimeout(…, 0)`: Deno's zero-delay timer fires about 2 ms later.
        this.#flushing = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushing = false;
    while (this.#pending.length > 0) void this.#send(this.#pending.splice(0, 10));
  }

  async #send(batch: Pending[]): Promise<void> {
    try {
      const out = await this.#client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.#queueUrl,
          Entries: batch.map((p, n) => ({ Id: String(n), ReceiptHandle: p.receiptHandle })),
        }),
      );
      const failed = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
      batch.forEach((p, n) => {
        const f = failed.get(String(n));
        if (f) p.reject(new Error(`${f.Code}: ${f.Message ?? "not deleted"}`));
        else p.resolve();
      });
    } catch (error) {
      const reason = error instanceof Error ? error : new Error(String(error));
      for (const p of batch) p.reject(reason);
    }
  }
}
