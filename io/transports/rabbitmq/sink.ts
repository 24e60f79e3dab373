/**
 * The `rabbitmq` sink: outbox rows whose destination is
 * `rabbitmq://<exchange>/<routing-key>` (an empty exchange is the default
 * exchange, so `rabbitmq:///<queue>` reaches a queue by name) are published
 * persistent and mandatory on a confirm channel. A row is `delivered` only
 * once the broker confirmed it; a nack, an unroutable message or a lost
 * connection is a retry (`SUTRA.BROKER.PUBLISH_FAILED`), a destination that
 * cannot be parsed is poison (`SUTRA.BROKER.DESTINATION_INVALID`). The
 * row's idempotency key travels as the AMQP `message-id`, so a receiver can
 * drop the copy a retry after a lost confirm produces.
 *
 * The broker is the one `SUTRA_RABBITMQ_URL` names when that variable is
 * set, else the broker of the first rabbitmq channel (by name) the engine
 * serves.
 *
 * @module
 */
import type {
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
import {
  amqp,
  type AmqpChannel,
  type AmqpConnection,
  amqpHeaders,
  publishConfirmed,
} from "./_amqp.ts";
import { connectionUrl, readRabbitOptions } from "./options.ts";

/** The destination scheme. */
export const RABBITMQ_SCHEME = "rabbitmq";

/** The exchange and routing key a destination names, or undefined when it names none. */
export function parseDestination(
  destination: string,
): { exchange: string; routingKey: string; channel?: string } | undefined {
  const match = /^rabbitmq:\/\/([^/?#]*)(?:\/([^?#]*))?(?:\?channel=([^&#]+))?$/.exec(
    destination.trim(),
  );
  if (!match) return undefined;
  try {
    return {
      exchange: decodeURIComponent(match[1]),
      routingKey: decodeURIComponent(match[2] ?? ""),
      ...(match[3] === undefined ? {} : { channel: decodeURIComponent(match[3]) }),
    };
  } catch {
    return undefined;
  }
}

/** The destination a reply to a message from `channel` goes to: its reply queue, on that channel's broker. */
export function replyDestination(replyTo: string, channel: string): string {
  return `rabbitmq:///${encodeURIComponent(replyTo)}?channel=${encodeURIComponent(channel)}`;
}

/** A publisher holding one connection and confirm channel, opened on first use and after a loss. */
export class RabbitPublisher {
  readonly #url: () => Promise<string>;
  #open: Promise<{ connection: AmqpConnection; channel: AmqpChannel }> | undefined;
  readonly #returned = new Set<string>();

  constructor(url: () => Promise<string>) {
    this.#url = url;
  }

  /** Publishes and waits for the broker's confirm; rejects when it does not come. */
  async publish(
    target: { exchange: string; routingKey: string },
    message: OutboundMessage,
  ): Promise<void> {
    const { channel } = await this.#channel();
    const { "correlation-id": correlationId, ...headers } = message.headers;
    await publishConfirmed(channel, target, message.body, {
      persistent: true,
      mandatory: true,
      messageId: message.idempotencyKey,
      headers: amqpHeaders(headers),
      ...(correlationId === undefined ? {} : { correlationId }),
      ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
    });
    // The broker returns an unroutable mandatory message before it confirms it.
    if (this.#returned.delete(message.idempotencyKey)) {
      throw new Error(
        `no queue is bound to exchange '${target.exchange}' with routing key '${target.routingKey}'`,
      );
    }
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    if (open) await open.then((o) => o.connection.close()).catch(() => {});
  }

  #channel(): Promise<{ connection: AmqpConnection; channel: AmqpChannel }> {
    if (!this.#open) {
      const opening = this.#connect();
      this.#open = opening;
      opening.catch(() => {
        if (this.#open === opening) this.#open = undefined;
      });
    }
    return this.#open;
  }

  async #connect(): Promise<{ connection: AmqpConnection; channel: AmqpChannel }> {
    const connection = await amqp.connect(await this.#url(), {
      clientProperties: { connection_name: "sutra/rabbitmq/outbox" },
    });
    const opened = this.#open;
    const lost = () => {
      if (this.#open === opened) this.#open = undefined;
    };
    connection.on("error", () => {});
    connection.on("close", lost);
    try {
      const channel = await connection.createConfirmChannel();
      channel.on("error", () => {});
      channel.on("close", lost);
      channel.on("return", (m: { properties: { messageId?: string } }) => {
        if (m.properties.messageId) this.#returned.add(m.properties.messageId);
      });
      return { connection, channel };
    } catch (error) {
      await connection.close().catch(() => {});
      throw error;
    }
  }
}

/** The broker URL of a destination naming its channel (a reply), else the sink's own. */
async function brokerOf(context: TransportContext, channel: string | undefined): Promise<string> {
  const named = namedChannel(context, channel);
  if (!named) return await sinkUrl(context);
  return await connectionUrl(context, readRabbitOptions(named).options.url);
}

/** The broker URL the sink publishes to. */
async function sinkUrl(context: TransportContext): Promise<string> {
  try {
    return await context.resolveSecret("env:SUTRA_RABBITMQ_URL");
  } catch {
    // Not set: the broker of the channels.
  }
  const options = firstValidOptions(context, readRabbitOptions);
  if (options) return await connectionUrl(context, options.url);
  throw new Error("no broker: set SUTRA_RABBITMQ_URL or serve a rabbitmq channel");
}

/** The sink of one running engine. */
export function rabbitSink(context: TransportContext): RemoteSink & {
  close(): Promise<void>;
} {
  // One publisher per broker; most engines talk to one.
  const publishers = new Map<string, RabbitPublisher>();
  const publisherFor = async (channel: string | undefined) => {
    const url = await brokerOf(context, channel);
    let p = publishers.get(url);
    if (!p) publishers.set(url, p = new RabbitPublisher(() => Promise.resolve(url)));
    return p;
  };

  return {
    name: RABBITMQ_SCHEME,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const target = parseDestination(message.destination);
      if (!target) {
        return destinationInvalid(message.destination, "rabbitmq://<exchange>/<routing-key>");
      }
      try {
        await (await publisherFor(target.channel)).publish(target, message);
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
