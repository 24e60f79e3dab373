/**
 * A `transport: kafka` channel's `options:` block.
 *
 * ```yaml
 * - name: transfers
 *   transport: kafka
 *   ack-mode: on-complete
 *   options:
 *     brokers: env:SUTRA_KAFKA_BROKERS   # host:port[,host:port…], a secret reference or a literal
 *     topic: transfers.requests          # default: the channel's name
 *     group-id: sutra.transfers          # default sutra.<tenant>.<channel>: one group per channel
 *     from-beginning: true               # a new group starts at the oldest record (default true)
 *     ordering: key                      # key (default): records of one key in order; partition: one at a time
 *     max-in-flight: 64                  # records of one partition being processed at once
 *     max-deliveries: 5                  # attempts before a transient refusal is dead-lettered
 *     dead-letter-topic: transfers.requests.dlt   # default <topic>.dlt
 *     idempotency-header: sutra-idempotency-key   # default: topic/partition/offset is the key
 *     session-timeout: PT30S
 *     heartbeat-interval: PT3S
 *     max-wait: PT1S                     # a fetch's long-poll wait
 *     lease-ttl: PT30S                   # singleton channels: takeover bound
 *     consume: true                      # false: an outbound-only channel (q:send channel=…)
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

/** Every key a kafka channel's options may hold. */
export const KAFKA_OPTION_KEYS = [
  "brokers",
  "topic",
  "group-id",
  "from-beginning",
  "ordering",
  "max-in-flight",
  "max-deliveries",
  "dead-letter-topic",
  "idempotency-header",
  "session-timeout",
  "heartbeat-interval",
  "max-wait",
  "lease-ttl",
  CONSUME_OPTION,
] as const;

/** A kafka channel's settings, defaults applied. */
export interface KafkaChannelOptions extends BrokerChannelOptions {
  /** The bootstrap brokers, or a secret reference to them. */
  readonly brokers: string;
  readonly topic: string;
  readonly groupId: string;
  readonly fromBeginning: boolean;
  /** `key`: one key's records one after another; `partition`: one record of a partition at a time. */
  readonly ordering: "key" | "partition";
  readonly maxInFlight: number;
  readonly maxDeliveries: number;
  readonly deadLetterTopic: string;
  /** A record header naming the idempotency key instead of topic/partition/offset. */
  readonly idempotencyHeader?: string;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly maxWaitMs: number;
  readonly leaseTtlMs: number;
}

/** Reads a channel's options; the diagnostics list what is wrong (empty when nothing is). */
export function readKafkaOptions(
  channel: BoundChannel,
): { options: KafkaChannelOptions; problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const r = new OptionReader(name, channel.declaration.options);
  r.only(KAFKA_OPTION_KEYS);
  const topic = r.string("topic", name)!;
  const ordering = r.string("ordering", "key")!;
  const idempotencyHeader = r.string("idempotency-header")?.toLowerCase();
  const options: KafkaChannelOptions = {
    brokers: r.required("brokers"),
    topic,
    groupId: r.string("group-id", `sutra.${channel.tenant}.${name}`)!,
    fromBeginning: r.boolean("from-beginning", true),
    ordering: ordering === "partition" ? "partition" : "key",
    maxInFlight: r.integer("max-in-flight", 64, 1, 100_000),
    maxDeliveries: r.integer("max-deliveries", 5, 1, 1_000_000),
    deadLetterTopic: r.string("dead-letter-topic", `${topic}.dlt`)!,
    ...(idempotencyHeader ? { idempotencyHeader } : {}),
    sessionTimeoutMs: r.duration("session-timeout", 30_000),
    heartbeatIntervalMs: r.duration("heartbeat-interval", 3_000),
    maxWaitMs: r.duration("max-wait", 1_000),
    leaseTtlMs: r.duration("lease-ttl", 30_000),
    consume: r.consume(),
  };
  const problems = [...r.problems];
  if (ordering !== "key" && ordering !== "partition") {
    problems.push(optionInvalid(name, "ordering", "must be key or partition"));
  }
  if (options.heartbeatIntervalMs >= options.sessionTimeoutMs) {
    problems.push(
      optionInvalid(name, "heartbeat-interval", "must be shorter than session-timeout"),
    );
  }
  if (options.topic === options.deadLetterTopic) {
    problems.push(optionInvalid(name, "dead-letter-topic", "must differ from the topic it serves"));
  }
  return { options, problems };
}

/** Resolves a channel's brokers (a secret reference or a literal list) into `host:port` entries. */
export async function brokerList(context: TransportContext, brokers: string): Promise<string[]> {
  const literal = /^[^:/\s,]+:\d+(\s*,\s*[^:/\s,]+:\d+)*$/.test(brokers.trim());
  const text = literal ? brokers : await context.resolveSecret(brokers);
  const list = text.split(",").map((b) => b.trim()).filter((b) => b !== "");
  if (list.length === 0) throw new Error(`no brokers in '${brokers}'`);
  return list;
}
