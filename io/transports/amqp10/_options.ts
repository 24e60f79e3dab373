/**
 * An `amqp10` channel's `options:` block (channels.yaml), read through the
 * shared {@link OptionReader} so a typo or a wrong value names the channel
 * and key (`SUTRA.BROKER.OPTIONS_INVALID`) and that channel is not consumed.
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { type BrokerChannelOptions, CONSUME_OPTION, OptionReader } from "../_broker/mod.ts";

/** Where a delivery's idempotency key comes from. */
export type IdempotencySource =
  /** The AMQP `message-id` property (the default). */
  | { readonly from: "message-id" }
  /** An application property of that (lower-case) name. */
  | { readonly from: "property"; readonly name: string }
  /** None: inbox dedup falls back to the route's `dedupKey`. */
  | { readonly from: "none" };

/** A checked `amqp10` channel. */
export interface Amqp10ChannelOptions extends BrokerChannelOptions {
  /** The connection URL: a secret reference (`env:…`, `secret:…`), or a literal without a password. */
  readonly url: string;
  /** The source address consumed (`/queue/<name>` on RabbitMQ); absent for a send-only channel. */
  readonly address?: string;
  /** Link credit: deliveries held unsettled at most (the prefetch). */
  readonly prefetch: number;
  /** Deliveries a message gets in all before a transient refusal dead-letters it. */
  readonly maxDeliveries: number;
  /** Where poison goes; without it poison is `rejected` (the broker's own dead-lettering applies). */
  readonly deadLetterAddress?: string;
  readonly idempotency: IdempotencySource;
  /** Lease time-to-live for `singleton: true`, milliseconds. */
  readonly leaseTtlMs: number;
}

const KNOWN = [
  "url",
  "address",
  "prefetch",
  "max-deliveries",
  "dead-letter-address",
  "idempotency-key",
  "lease-ttl",
  CONSUME_OPTION,
] as const;

/** Defaults, in one place for the docs. */
export const DEFAULTS = { prefetch: 10, maxDeliveries: 5, leaseTtlMs: 30_000 } as const;

/** The channel's options, or every problem with them. */
export function readOptions(
  channel: BoundChannel,
): { options: Amqp10ChannelOptions } | { problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const read = new OptionReader(name, channel.declaration.options);
  read.only(KNOWN);
  const url = read.required("url");
  const address = read.string("address");
  const prefetch = read.integer("prefetch", DEFAULTS.prefetch, 1, 10_000);
  const maxDeliveries = read.integer("max-deliveries", DEFAULTS.maxDeliveries, 1, 1_000);
  const deadLetterAddress = read.string("dead-letter-address");
  const key = read.string("idempotency-key", "message-id")!;
  const leaseTtlMs = read.duration("lease-ttl", DEFAULTS.leaseTtlMs);
  const consume = read.consume();
  if (read.problems.length > 0) return { problems: read.problems };
  const idempotency: IdempotencySource = key === "message-id"
    ? { from: "message-id" }
    : key === "none"
    ? { from: "none" }
    : { from: "property", name: key.replace(/^property:/, "").toLowerCase() };
  return {
    options: {
      url,
      prefetch,
      maxDeliveries,
      idempotency,
      leaseTtlMs,
      consume,
      ...(address ? { address } : {}),
      ...(deadLetterAddress ? { deadLetterAddress } : {}),
    },
  };
}
