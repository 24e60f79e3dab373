/**
 * The Kafka client (`npm:kafkajs`), configured the way every part of the
 * transport uses it (its log lines routed into the engine's logger, no
 * retry loop of its own where the transport has one), and the conversions
 * between records and the engine's deliveries and outbound messages.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  Kafka,
  type KafkaConfig,
  type KafkaMessage,
  logLevel,
  type Producer,
  type SASLOptions,
} from "kafkajs";
import type { Logger } from "../../../engine/core/log.ts";
import type { KafkaConnection } from "./options.ts";
import { headerText, inboundHeaderName, outboundHeaderName } from "../_broker/mod.ts";

export { Buffer };
export type { Consumer, EachBatchPayload, KafkaMessage, Producer };

/** The CloudEvents Kafka binding's header prefix. */
export const CLOUDEVENTS_PREFIX = "ce_";

/** The outbound header whose value becomes the record key (set it with a `q:header`). */
export const KEY_HEADER = "kafka-key";

/** The record header carrying an outbox row's idempotency key. */
export const IDEMPOTENCY_HEADER = "sutra-idempotency-key";

/** Options for {@link kafkaClient}. */
export interface KafkaClientOptions {
  /** The brokers, and the login and TLS settings when the channel has them. */
  readonly connection: KafkaConnection;
  readonly clientId: string;
  readonly logger: Logger;
  /** Retries of one request before it fails (default 0: the caller retries). */
  readonly retries?: number;
}

/** A client whose log lines go to `logger` at debug level (the transport logs what matters). */
export function kafkaClient(o: KafkaClientOptions): Kafka {
  const config: KafkaConfig = {
    clientId: o.clientId,
    brokers: [...o.connection.brokers],
    // kafkajs types each mechanism apart; the three share one shape.
    ...(o.connection.sasl ? { sasl: { ...o.connection.sasl } as SASLOptions } : {}),
    ...(o.connection.ssl ? { ssl: o.connection.ssl } : {}),
    connectionTimeout: 3_000,
    requestTimeout: 30_000,
    retry: { retries: o.retries ?? 0, initialRetryTime: 200, maxRetryTime: 2_000 },
    logLevel: logLevel.WARN,
    logCreator: () => ({ namespace, level, log }) => {
      const { message, ...fields } = log;
      o.logger.debug(`kafkajs ${namespace}: ${message}`, {
        kafkaLevel: logLevel[level],
        ...fields,
      });
    },
  };
  return new Kafka(config);
}

/** A record's headers as the delivery's lower-case string headers (CloudEvents `ce_*` as `ce-*`). */
export function recordHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    // A header sent several times: the last one wins, as a single-valued map must choose.
    const text = headerText(Array.isArray(value) ? value[value.length - 1] : value);
    if (text !== undefined) out[inboundHeaderName(name)] = text;
  }
  return out;
}

/** Outbound headers as record headers: `ce-*` in the Kafka binding's `ce_*` spelling. */
export function outboundHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[outboundHeaderName(name, CLOUDEVENTS_PREFIX)] = value;
  }
  return out;
}
