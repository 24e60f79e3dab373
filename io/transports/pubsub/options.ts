/**
 * A `transport: pubsub` channel's `options:` block.
 *
 * ```yaml
 * - name: orders
 *   transport: pubsub
 *   ack-mode: on-persist
 *   options:
 *     project: env:GOOGLE_CLOUD_PROJECT   # a literal id or a reference; default
 *                                         # PUBSUB_PROJECT_ID, then GOOGLE_CLOUD_PROJECT
 *     credentials: secret:pubsub-sa.json  # a reference to a service-account JSON key;
 *                                         # absent: application default credentials
 *     endpoint: env:PUBSUB_EMULATOR_HOST  # host:port; absent: PUBSUB_EMULATOR_HOST when set
 *     topic: orders                       # the topic the subscription reads (default: the name)
 *     subscription: orders                # default: the channel's name
 *     declare: true                       # create topic, subscription and dead-letter topic
 *     ordering: false                     # create the subscription with message ordering
 *     ack-deadline: PT60S                 # lease length; the client extends held messages
 *     max-messages: 100                   # flow control: messages in hand at once
 *     max-deliveries: 5                   # redelivery budget
 *     dead-letter-topic: orders-dlq       # default <subscription>-dlq
 *     idempotency-attribute: ""           # default: the Pub/Sub message id
 *     lease-ttl: PT30S                    # singleton channels: takeover bound
 *     consume: true                       # false: send-only (a q:send destination), never consumed
 * ```
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import {
  type BrokerChannelOptions,
  CONSUME_OPTION,
  optionInvalid,
  OptionReader,
} from "../_broker/mod.ts";

/** Every key a pubsub channel's options may hold. */
export const PUBSUB_OPTION_KEYS = [
  "project",
  "credentials",
  "endpoint",
  "topic",
  "subscription",
  "declare",
  "ordering",
  "ack-deadline",
  "max-messages",
  "max-deliveries",
  "dead-letter-topic",
  "idempotency-attribute",
  "lease-ttl",
  CONSUME_OPTION,
] as const;

/** Where the client connects and as whom (values may be secret references). */
export interface PubSubConnection {
  readonly project?: string;
  readonly credentials?: string;
  readonly endpoint?: string;
}

/** A pubsub channel's settings, defaults applied. */
export interface PubSubChannelOptions extends PubSubConnection, BrokerChannelOptions {
  readonly topic: string;
  readonly subscription: string;
  readonly declare: boolean;
  readonly ordering: boolean;
  /** Seconds, 10 to 600 (the service's range). */
  readonly ackDeadlineSeconds: number;
  readonly maxMessages: number;
  readonly maxDeliveries: number;
  readonly deadLetterTopic: string;
  /** An attribute naming the idempotency key instead of the message id; "" for the id. */
  readonly idempotencyAttribute: string;
  readonly leaseTtlMs: number;
}

// Topic and subscription ids as the service accepts them.
const RESOURCE_ID = /^[A-Za-z][\w.~+%-]{2,254}$/;

/** Reads a channel's options; the diagnostics list what is wrong (empty when nothing is). */
export function readPubSubOptions(
  channel: BoundChannel,
): { options: PubSubChannelOptions; problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const r = new OptionReader(name, channel.declaration.options);
  r.only(PUBSUB_OPTION_KEYS);
  const project = r.string("project");
  const credentials = r.string("credentials");
  const endpoint = r.string("endpoint");
  const subscription = r.string("subscription", name)!;
  const ackDeadlineMs = r.duration("ack-deadline", 60_000);
  const options: PubSubChannelOptions = {
    ...(project === undefined ? {} : { project }),
    ...(credentials === undefined ? {} : { credentials }),
    ...(endpoint === undefined ? {} : { endpoint }),
    topic: r.string("topic", name)!,
    subscription,
    declare: r.boolean("declare", true),
    ordering: r.boolean("ordering", false),
    ackDeadlineSeconds: Math.round(ackDeadlineMs / 1000),
    maxMessages: r.integer("max-messages", 100, 1, 10_000),
    // The subscription's own policy counts 5 to 100 attempts and forwards one past ours.
    maxDeliveries: r.integer("max-deliveries", 5, 1, 99),
    deadLetterTopic: r.string("dead-letter-topic", `${subscription}-dlq`)!,
    idempotencyAttribute: r.string("idempotency-attribute", "")!,
    leaseTtlMs: r.duration("lease-ttl", 30_000),
    consume: r.consume(),
  };
  const problems = [...r.problems];
  if (options.ackDeadlineSeconds < 10 || options.ackDeadlineSeconds > 600) {
    problems.push(optionInvalid(name, "ack-deadline", "must be from PT10S to PT600S"));
  }
  for (const key of ["topic", "subscription", "dead-letter-topic"] as const) {
    const value = key === "topic"
      ? options.topic
      : key === "subscription"
      ? options.subscription
      : options.deadLetterTopic;
    if (!RESOURCE_ID.test(value)) {
      problems.push(optionInvalid(
        name,
        key,
        `'${value}' is not a Pub/Sub id (3-255 characters, a letter first, then letters, ` +
          "digits and - _ . ~ + %)",
      ));
    }
  }
  if (credentials !== undefined && credentials.trimStart().startsWith("{")) {
    problems.push(
      optionInvalid(
        name,
        "credentials",
        "holds a key: use a secret reference (env:, secret:, ${…})",
      ),
    );
  }
  return { options, problems };
}
