/**
 * The `kafka` sink: outbox rows whose destination is `kafka://<topic>`
 * (optionally `?channel=<name>` to use that channel's brokers) are
 * published with `acks=all` on the idempotent producer. A row is
 * `delivered` only once the broker accepted the record; a lost connection
 * or a refusal is a retry (`SUTRA.BROKER.PUBLISH_FAILED`), a destination
 * that cannot be parsed is poison (`SUTRA.BROKER.DESTINATION_INVALID`).
 *
 * The record key is the `kafka-key` header (a `q:header` on the `q:send`,
 * so any FEEL expression computes it), which is not sent as a header. The
 * content type travels as the `content-type` header and the CloudEvents
 * attributes as `ce_*` headers (the Kafka binding); the row's idempotency
 * key travels as `sutra-idempotency-key`, so a consumer can drop the copy a
 * retry after a lost answer produces (a Sutra kafka channel does with
 * `idempotency-header: sutra-idempotency-key`).
 *
 * `kafka://<name>` naming a kafka channel the engine serves publishes to
 * that channel's topic on its brokers (see {@link resolveTarget}).
 * Otherwise the brokers are those `SUTRA_KAFKA_BROKERS` names when that
 * variable is set, else those of the first kafka channel (by name) the
 * engine serves.
 *
 * @module
 */
import type {
  BoundChannel,
  OutboundMessage,
  RemoteSink,
  SinkResult,
  TransportContext,
} from "../../../engine/core/transport.ts";
import {
  destinationInvalid,
  firstValidOptions,
  namedChannel,
  publishFailed,
} from "../_broker/mod.ts";
import { IDEMPOTENCY_HEADER, KEY_HEADER, outboundHeaders } from "./_kafka.ts";
import { brokerList, connectionOf, type KafkaConnection, readKafkaOptions } from "./options.ts";
import { KafkaPublisher } from "./publisher.ts";

/** The destination scheme. */
export const KAFKA_SCHEME = "kafka";

/** The topic (and the channel whose brokers to use) a destination names, or undefined. */
export function parseDestination(
  destination: string,
): { topic: string; channel?: string } | undefined {
  const match = /^kafka:\/\/([^/?#]+)\/?(?:\?channel=([^&#]+))?$/.exec(destination.trim());
  if (!match) return undefined;
  try {
    const topic = decodeURIComponent(match[1]);
    if (!/^[A-Za-z0-9._-]{1,249}$/.test(topic)) return undefined;
    return { topic, ...(match[2] === undefined ? {} : { channel: decodeURIComponent(match[2]) }) };
  } catch {
    return undefined;
  }
}

/**
 * The topic and channel a destination is published to: `kafka://<name>`
 * naming a kafka channel the engine serves (what `q:send channel="<name>"`
 * makes of a channel without `bind`) goes to that channel's topic on its
 * brokers; any other name is a topic.
 */
export function resolveTarget(
  destination: string,
  channels: readonly BoundChannel[],
): { topic: string; channel?: string } | undefined {
  const target = parseDestination(destination);
  if (!target || target.channel !== undefined) return target;
  const named = channels.find((c) => c.declaration.name === target.topic);
  if (!named) return target;
  return { topic: readKafkaOptions(named).options.topic, channel: named.declaration.name };
}

/**
 * The cluster of a destination naming its channel (its brokers, login and
 * TLS), else the sink's own: `SUTRA_KAFKA_BROKERS` (plain, no login), else
 * the first valid kafka channel's.
 */
async function connectionFor(
  context: TransportContext,
  channel: string | undefined,
): Promise<KafkaConnection> {
  const named = namedChannel(context, channel);
  if (named) return await connectionOf(context, readKafkaOptions(named).options);
  try {
    return {
      brokers: await brokerList(context, await context.resolveSecret("env:SUTRA_KAFKA_BROKERS")),
    };
  } catch {
    // Not set: the cluster of the channels.
  }
  const options = firstValidOptions(context, readKafkaOptions);
  if (options) return await connectionOf(context, options);
  throw new Error("no brokers: set SUTRA_KAFKA_BROKERS or serve a kafka channel");
}

/** The sink of one running engine. */
export function kafkaSink(context: TransportContext): RemoteSink & { close(): Promise<void> } {
  // One producer per cluster and login; most engines talk to one cluster.
  const publishers = new Map<string, KafkaPublisher>();
  const publisherFor = async (channel: string | undefined) => {
    const connection = await connectionFor(context, channel);
    const id = JSON.stringify(connection);
    let p = publishers.get(id);
    if (!p) {
      p = new KafkaPublisher({
        connection: () => Promise.resolve(connection),
        clientId: "sutra-outbox",
        logger: context.logger,
      });
      publishers.set(id, p);
    }
    return p;
  };

  return {
    name: KAFKA_SCHEME,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const target = resolveTarget(message.destination, context.channels());
      if (!target) {
        return destinationInvalid(message.destination, "kafka://<topic>");
      }
      const { [KEY_HEADER]: key, ...rest } = message.headers;
      try {
        await (await publisherFor(target.channel)).publish(target.topic, {
          ...(key === undefined || key === "" ? {} : { key }),
          value: message.body,
          headers: {
            ...outboundHeaders(rest),
            ...(message.contentType === undefined ? {} : { "content-type": message.contentType }),
            [IDEMPOTENCY_HEADER]: message.idempotencyKey,
          },
        });
        return { outcome: "delivered" };
      } catch (error) {
        return publishFailed(error, message.destination);
      }
    },
    close: async () => {
      await Promise.all([...publishers.values()].map((p) => p.close()));
    },
  };
}
