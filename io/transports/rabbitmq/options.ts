/**
 * A `transport: rabbitmq` channel's `options:` block.
 *
 * ```yaml
 * - name: transfers
 *   transport: rabbitmq
 *   ack-mode: on-complete
 *   options:
 *     url: env:SUTRA_RABBITMQ_URL      # a secret reference (or a literal without a password)
 *     queue: transfers.requests        # default: the channel's name
 *     exchange: transfers              # optional: declare it and bind the queue
 *     exchange-type: topic             # default topic
 *     routing-key: "transfer.#"        # default "#"
 *     declare: true                    # false: use what exists, declare nothing
 *     queue-type: classic              # or quorum (its x-delivery-count feeds the budget)
 *     prefetch: 32
 *     max-deliveries: 5                # redelivery budget
 *     dead-letter-exchange: ""         # default: the default exchange
 *     dead-letter-queue: transfers.requests.dlq   # default <queue>.dlq
 *     idempotency-header: message-id   # default: the AMQP message-id property
 *     lease-ttl: PT30S                 # singleton channels: takeover bound
 *     consume: true                    # false: send-only (a q:send destination), never consumed
 * ```
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import {
  type BrokerChannelOptions,
  CONSUME_OPTION,
  optionInvalid,
  OptionReader,
} from "../_broker/mod.ts";

/** Every key a rabbitmq channel's options may hold. */
export const RABBITMQ_OPTION_KEYS = [
  "url",
  "queue",
  "exchange",
  "exchange-type",
  "routing-key",
  "declare",
  "queue-type",
  "prefetch",
  "max-deliveries",
  "dead-letter-exchange",
  "dead-letter-queue",
  "idempotency-header",
  "lease-ttl",
  CONSUME_OPTION,
] as const;

/** A rabbitmq channel's settings, defaults applied. */
export interface RabbitChannelOptions extends BrokerChannelOptions {
  /** The connection URL or a secret reference to it. */
  readonly url: string;
  readonly queue: string;
  readonly exchange?: string;
  readonly exchangeType: string;
  readonly routingKey: string;
  readonly declare: boolean;
  readonly queueType: "classic" | "quorum";
  readonly prefetch: number;
  readonly maxDeliveries: number;
  readonly deadLetterExchange: string;
  readonly deadLetterQueue: string;
  /** A header naming the idempotency key instead of the `message-id` property. */
  readonly idempotencyHeader: string;
  readonly leaseTtlMs: number;
}

/** Reads a channel's options; the diagnostics list what is wrong (empty when nothing is). */
export function readRabbitOptions(
  channel: BoundChannel,
): { options: RabbitChannelOptions; problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const r = new OptionReader(name, channel.declaration.options);
  r.only(RABBITMQ_OPTION_KEYS);
  const url = r.required("url");
  const queue = r.string("queue", name)!;
  const queueType = r.string("queue-type", "classic")!;
  const exchange = r.string("exchange");
  const options: RabbitChannelOptions = {
    url,
    queue,
    ...(exchange === undefined ? {} : { exchange }),
    exchangeType: r.string("exchange-type", "topic")!,
    routingKey: r.string("routing-key", "#")!,
    declare: r.boolean("declare", true),
    queueType: queueType === "quorum" ? "quorum" : "classic",
    prefetch: r.integer("prefetch", 32, 1, 65_535),
    maxDeliveries: r.integer("max-deliveries", 5, 1, 1_000_000),
    deadLetterExchange: r.string("dead-letter-exchange", "")!,
    deadLetterQueue: r.string("dead-letter-queue", `${queue}.dlq`)!,
    idempotencyHeader: r.string("idempotency-header", "message-id")!.toLowerCase(),
    leaseTtlMs: r.duration("lease-ttl", 30_000),
    consume: r.consume(),
  };
  const problems = [...r.problems];
  if (queueType !== "classic" && queueType !== "quorum") {
    problems.push(optionInvalid(name, "queue-type", "must be classic or quorum"));
  }
  if (/^amqps?:\/\/[^/@]*:[^/@]+@/.test(url)) {
    problems.push(
      optionInvalid(name, "url", "holds a password: use a secret reference (env:, secret:, ${…})"),
    );
  }
  return { options, problems };
}

/** True when `url` is a secret reference rather than a literal URL. */
export function isSecretReference(url: string): boolean {
  return /^(env:|secret:|\$\{)/.test(url) || !/^amqps?:\/\//.test(url);
}

/** Resolves a channel's connection URL (a secret reference or a literal). */
export async function connectionUrl(
  context: TransportContext,
  url: string,
): Promise<string> {
  return isSecretReference(url) ? await context.resolveSecret(url) : url;
}
