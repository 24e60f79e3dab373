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
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(client: SQSClient, queueUrl: string) {
    this.#client = client;
    this.#queueUrl = queueUrl;
  }

  /** Deletes the message; resolves once SQS confirmed it, rejects with SQS's reason. */
  delete(receiptHandle: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ receiptHandle, resolve, reject });
      if (this.#pending.length >= 10) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), 0);
    });
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
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
