/**
 * The `pubsub` sink: outbox rows whose destination is `pubsub://<topic>`
 * (optionally `?channel=<name>` to publish with that channel's project and
 * endpoint) are published, and a row is `delivered` only once the service
 * answered the publish with a message id; a failed or timed-out publish is
 * a retry (`SUTRA.BROKER.PUBLISH_FAILED`), a destination that cannot be
 * parsed is poison (`SUTRA.BROKER.DESTINATION_INVALID`).
 *
 * The row's idempotency key travels as the `sutra-idempotency-key`
 * attribute (Pub/Sub assigns message ids itself, so a retry after a lost
 * answer is a new message id with the same key), its content type as
 * `content-type`, CloudEvents headers as `ce-*` attributes. A
 * `pubsub-ordering-key` header (a `q:header` whose value is a FEEL
 * expression) becomes the message's ordering key, not an attribute.
 *
 * The project and endpoint are those of the channel a destination names,
 * else of the first pubsub channel (by name) the engine serves, else the
 * environment's (`PUBSUB_EMULATOR_HOST`, `PUBSUB_PROJECT_ID`).
 *
 * @module
 */
import type {
  OutboundMessage,
  RemoteSink,
  SinkResult,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { destinationInvalid, publishFailed } from "../_broker/mod.ts";
import {
  Buffer,
  IDEMPOTENCY_ATTRIBUTE,
  openClient,
  type OpenedClient,
  outboundAttributes,
  type Topic,
} from "./_client.ts";
import { type PubSubConnection, readPubSubOptions } from "./options.ts";

/** The destination scheme. */
export const PUBSUB_SCHEME = "pubsub";

/** How long one publish may take before the outbox tries again later. */
const PUBLISH_TIMEOUT_MS = 10_000;

/** The topic a destination names (and the channel whose connection it uses), or undefined. */
export function parseDestination(
  destination: string,
): { topic: string; channel?: string } | undefined {
  const match = /^pubsub:\/\/([A-Za-z][\w.~+%-]{2,254})\/?(?:\?channel=([^&#]+))?$/.exec(
    destination.trim(),
  );
  if (!match) return undefined;
  try {
    return {
      topic: match[1],
      ...(match[2] === undefined ? {} : { channel: decodeURIComponent(match[2]) }),
    };
  } catch {
    return undefined;
  }
}

/** The connection settings a destination publishes with. */
function connectionOf(context: TransportContext, channel: string | undefined): PubSubConnection {
  const candidates = channel === undefined
    ? [...context.channels()].filter((c) => c.declaration.transport === PUBSUB_SCHEME)
      .sort((a, b) => a.declaration.name.localeCompare(b.declaration.name))
    : context.channels().filter((c) => c.declaration.name === channel);
  for (const candidate of candidates) {
    const { options, problems } = readPubSubOptions(candidate);
    if (problems.length > 0) continue;
    return {
      ...(options.project === undefined ? {} : { project: options.project }),
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    };
  }
  return {};
}

/** The sink of one running engine. */
export function pubsubSink(context: TransportContext): RemoteSink & { close(): Promise<void> } {
  // One client per connection (most engines talk to one), one publisher per topic on it.
  const clients = new Map<string, Promise<OpenedClient>>();
  const topics = new Map<string, Topic>();
  const topicFor = async (connection: PubSubConnection, name: string, ordered: boolean) => {
    const key = JSON.stringify(connection);
    let opened = clients.get(key);
    if (!opened) {
      opened = openClient(context, connection);
      clients.set(key, opened);
      // A connection that could not be opened is tried afresh next time.
      opened.catch(() => clients.delete(key));
    }
    const { client } = await opened;
    const topicKey = JSON.stringify([key, name, ordered]);
    let topic = topics.get(topicKey);
    if (!topic) {
      topic = client.topic(name, {
        messageOrdering: ordered,
        batching: { maxMilliseconds: 5 },
        gaxOpts: { timeout: PUBLISH_TIMEOUT_MS, maxRetries: 2 },
      });
      topics.set(topicKey, topic);
    }
    return topic;
  };

  return {
    name: PUBSUB_SCHEME,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const target = parseDestination(message.destination);
      if (!target) {
        return destinationInvalid(message.destination, "pubsub://<topic>");
      }
      const { attributes, orderingKey } = outboundAttributes(message.headers);
      attributes[IDEMPOTENCY_ATTRIBUTE] = message.idempotencyKey;
      if (message.contentType !== undefined) attributes["content-type"] = message.contentType;
      let topic: Topic | undefined;
      try {
        const connection = connectionOf(context, target.channel);
        topic = await topicFor(connection, target.topic, orderingKey !== undefined);
        await topic.publishMessage({
          data: Buffer.from(message.body),
          attributes,
          ...(orderingKey === undefined ? {} : { orderingKey }),
        });
        return { outcome: "delivered" };
      } catch (error) {
        // A failed publish pauses its ordering key in the client; the outbox's retry resumes it.
        if (orderingKey !== undefined) topic?.resumePublishing(orderingKey);
        return publishFailed(error, message.destination);
      }
    },
    close: async () => {
      const all = [...clients.values()];
      clients.clear();
      topics.clear();
      await Promise.all(all.map((c) => c.then((o) => o.client.close()).catch(() => {})));
    },
  };
}
