/**
 * One idempotent producer per broker list, shared by the outbox sink and a
 * channel's dead-letter copies: `acks=all` (every in-sync replica has the
 * record before the send resolves), the idempotent producer (a batch
 * resent after a lost answer is not appended twice), one request in
 * flight so a retry cannot reorder. A send that fails drops the connection,
 * so the next one starts from a fresh one.
 *
 * @module
 */
import { Partitioners } from "kafkajs";
import type { Logger } from "../../../engine/core/log.ts";
import { Buffer, kafkaClient, type Producer } from "./_kafka.ts";
import type { KafkaConnection } from "./options.ts";

/** A record to publish. */
export interface OutboundRecord {
  readonly key?: string | Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: Readonly<Record<string, string | Uint8Array | (string | Uint8Array)[]>>;
}

/** Options for {@link KafkaPublisher}. */
export interface KafkaPublisherOptions {
  readonly connection: () => Promise<KafkaConnection>;
  readonly clientId: string;
  readonly logger: Logger;
}

/** A producer connected on first use and after a failure. */
export class KafkaPublisher {
  readonly #o: KafkaPublisherOptions;
  #producer: Promise<Producer> | undefined;

  constructor(options: KafkaPublisherOptions) {
    this.#o = options;
  }

  /** Publishes one record; resolves once every in-sync replica has it. */
  async publish(topic: string, record: OutboundRecord): Promise<void> {
    const producer = await this.#connected();
    try {
      await producer.send({
        topic,
        acks: -1,
        messages: [{
          key: record.key === undefined ? null : toBuffer(record.key),
          value: toBuffer(record.value),
          headers: Object.fromEntries(
            Object.entries(record.headers).map((
              [k, v],
            ) => [k, Array.isArray(v) ? v.map((x) => toBuffer(x)!) : toBuffer(v)!]),
          ),
        }],
      });
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /** Disconnects (the next publish connects again). */
  async close(): Promise<void> {
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await producer.then((p) => p.disconnect()).catch(() => {});
  }

  #connected(): Promise<Producer> {
    if (!this.#producer) {
      const opening = this.#connect();
      this.#producer = opening;
      opening.catch(() => {
        if (this.#producer === opening) this.#producer = undefined;
      });
    }
    return this.#producer;
  }

  async #connect(): Promise<Producer> {
    const kafka = kafkaClient({
      connection: await this.#o.connection(),
      clientId: this.#o.clientId,
      logger: this.#o.logger,
      retries: 2,
    });
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => {});
      throw error;
    }
    return producer;
  }
}

function toBuffer(v: string | Uint8Array | null): Buffer | null {
  if (v === null) return null;
  return typeof v === "string" ? Buffer.from(v) : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}
