/**
 * One consumer per rabbitmq channel: it keeps a connection (reconnecting
 * with backoff), consumes the channel's queue with the channel's prefetch,
 * hands each message to the engine and acts on the answer with the shared
 * broker verdicts: ack, nack with requeue, or publish to the dead-letter
 * destination (confirmed) and then ack. On-complete channels hold each ack
 * until the instances the message started or advanced have ended. Acks go
 * through an {@link AckWindow}, which sends those of one tick together.
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import type { Logger } from "../../../engine/core/log.ts";
import type {
  BoundChannel,
  InboundDelivery,
  TransportContext,
} from "../../../engine/core/transport.ts";
import {
  ABANDON,
  type BrokerVerdict,
  ConsumerLoop,
  deadLetterHeaders,
  deliverForVerdict,
  RedeliveryBudget,
  unwrapStructured,
} from "../_broker/mod.ts";
import {
  amqp,
  type AmqpChannel,
  type AmqpConnection,
  type AmqpMessage,
  deliveryHeaders,
  priorDeliveries,
  publishConfirmed,
} from "./_amqp.ts";
import { AckWindow } from "./_acks.ts";
import { connectionUrl, type RabbitChannelOptions } from "./options.ts";
import { replyDestination } from "./sink.ts";

/** What a consumer needs. */
export interface ConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  readonly options: RabbitChannelOptions;
  readonly logger: Logger;
}

/** Declares the queue (and its exchange binding and dead-letter queue) unless `declare: false`. */
export async function declareTopology(ch: AmqpChannel, o: RabbitChannelOptions): Promise<void> {
  if (!o.declare) return;
  const args = o.queueType === "quorum" ? { "x-queue-type": "quorum" } : {};
  await ch.assertQueue(o.queue, { durable: true, arguments: args });
  await ch.assertQueue(o.deadLetterQueue, { durable: true, arguments: args });
  if (o.deadLetterExchange !== "") {
    await ch.assertExchange(o.deadLetterExchange, "direct", { durable: true });
    await ch.bindQueue(o.deadLetterQueue, o.deadLetterExchange, o.deadLetterQueue);
  }
  if (o.exchange !== undefined && o.exchange !== "") {
    await ch.assertExchange(o.exchange, o.exchangeType, { durable: true });
    await ch.bindQueue(o.queue, o.exchange, o.routingKey);
  }
}

/** A running channel consumer. */
export class ChannelConsumer {
  readonly #o: ConsumerOptions;
  readonly #budget: RedeliveryBudget;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #life: ConsumerLoop;
  #connection: AmqpConnection | undefined;
  #warnedReply = false;

  constructor(options: ConsumerOptions) {
    this.#o = options;
    this.#budget = new RedeliveryBudget({ maxDeliveries: options.options.maxDeliveries });
    this.#life = new ConsumerLoop({
      logger: options.logger,
      what: `rabbitmq channel '${options.channel.declaration.name}'`,
      session: (connected) => this.#session(connected),
      drain: () => this.#drain(),
    });
  }

  /** Starts consuming (again), reconnecting whenever the connection drops. */
  start(): void {
    this.#life.start();
  }

  /** Stops consuming, lets the deliveries in flight finish, and closes the connection. */
  stop(): Promise<void> {
    return this.#life.stop();
  }

  async #drain(): Promise<void> {
    const connection = this.#connection;
    // Stop new deliveries first; the ones in flight still ack on the open channel.
    await this.#cancel?.().catch(() => {});
    await Promise.allSettled([...this.#inFlight]);
    await connection?.close().catch(() => {});
  }

  #cancel: (() => Promise<unknown>) | undefined;

  /** One connection's life: connect, declare, consume until the connection closes. */
  async #session(connected: () => void): Promise<void> {
    const o = this.#o.options;
    const url = await connectionUrl(this.#o.context, o.url);
    const connection = await amqp.connect(url, {
      clientProperties: {
        connection_name: `sutra/rabbitmq/${this.#o.channel.declaration.name}`,
      },
    });
    this.#connection = connection;
    const closed = new Promise<void>((resolve) => {
      connection.on("close", () => resolve());
      // An 'error' is always followed by 'close'; listening keeps it from being thrown.
      connection.on("error", () => {});
    });
    try {
      if (this.#life.signal.aborted) throw new Error("stopped while connecting");
      const ch = await connection.createConfirmChannel();
      ch.on("error", () => {});
      // A channel the broker closed (e.g. a publish to a missing exchange) ends the session:
      // the connection goes too, and the loop reconnects with a fresh channel.
      ch.on("close", () => void connection.close().catch(() => {}));
      await declareTopology(ch, o);
      await ch.prefetch(o.prefetch);
      const acks = new AckWindow(ch);
      const { consumerTag } = await ch.consume(o.queue, (message) => {
        if (!message) return;
        acks.received(message.fields.deliveryTag);
        this.#track(this.#handle(ch, acks, message));
      });
      this.#cancel = () => ch.cancel(consumerTag);
      connected();
      this.#o.logger.info("consuming", {
        channel: this.#o.channel.declaration.name,
        queue: o.queue,
      });
    } catch (error) {
      await connection.close().catch(() => {});
      throw error;
    }
    // A stop that came while this session was connecting did not see its connection.
    if (this.#life.signal.aborted) await connection.close().catch(() => {});
    await closed;
    this.#cancel = undefined;
    this.#connection = undefined;
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** One message: to the engine, then ack / requeue / dead-letter. Never rejects. */
  async #handle(ch: AmqpChannel, acks: AckWindow, message: AmqpMessage): Promise<void> {
    const name = this.#o.channel.declaration.name;
    try {
      const verdict = await this.#verdict(message);
      await this.#act(ch, acks, message, verdict);
    } catch (error) {
      // The channel is gone (connection lost): the broker requeues the message itself.
      this.#o.logger.warn("a delivery could not be settled; the broker will redeliver it", {
        channel: name,
        error: errorMessage(error),
      });
    }
  }

  #verdict(message: AmqpMessage): Promise<BrokerVerdict | typeof ABANDON> {
    return deliverForVerdict({
      context: this.#o.context,
      channel: this.#o.channel,
      signal: this.#life.signal,
      delivery: (deferral) => this.#delivery(message, deferral),
    });
  }

  /** The engine's view of a message; a structured CloudEvent is unwrapped (or refused). */
  #delivery(
    message: AmqpMessage,
    deferral: InboundDelivery["deferral"],
  ): InboundDelivery | Diagnostic {
    const headers = deliveryHeaders(message);
    const o = this.#o.options;
    const key = headers[o.idempotencyHeader];
    const contentType = message.properties.contentType as string | undefined;
    const channel = this.#o.channel.declaration.name;
    // The answer carries the request's correlation id, else its message id.
    const replyTo = message.properties.replyTo as string | undefined;
    const correlationId = headers["correlation-id"] ?? headers["message-id"];
    const reply: Record<string, string> = correlationId ? { "correlation-id": correlationId } : {};
    const delivery: InboundDelivery = {
      channel,
      body: new Uint8Array(message.content),
      headers,
      ...(contentType === undefined ? {} : { contentType }),
      ...(key === undefined || key === "" ? {} : { idempotencyKey: key }),
      ...(deferral ? { deferral } : {}),
      ...(replyTo
        ? { replyTo: { destination: replyDestination(replyTo, channel), headers: reply } }
        : {}),
    };
    return unwrapStructured(delivery, this.#o.channel);
  }

  /** Carries a verdict out; a requeue past the budget becomes a dead-letter. */
  async #act(
    ch: AmqpChannel,
    acks: AckWindow,
    message: AmqpMessage,
    verdict: BrokerVerdict | typeof ABANDON,
  ): Promise<void> {
    // Unacknowledged, it returns to the queue when the connection closes.
    if (verdict === ABANDON) return;
    // A message without an id is counted by its content, so it too cannot loop forever.
    const messageId = (message.properties.messageId as string | undefined) ??
      await contentKey(message.content);
    if (verdict.action === "requeue") {
      const n = this.#budget.count({
        messageId,
        ...(priorDeliveries(message) === undefined
          ? {}
          : { priorDeliveries: priorDeliveries(message) }),
        redelivered: message.fields.redelivered,
      });
      if (this.#budget.spent(n)) {
        verdict = {
          action: "dead-letter",
          diagnostic: this.#budget.exhausted(n, verdict.diagnostic),
        };
      } else {
        this.#o.logger.info("requeued", {
          channel: this.#o.channel.declaration.name,
          code: verdict.diagnostic.code,
          delivery: n,
        });
        acks.requeue(message.fields.deliveryTag);
        return;
      }
    }
    if (verdict.action === "dead-letter") {
      try {
        await this.#deadLetter(ch, message, verdict.diagnostic);
      } catch (error) {
        // Never dropped: without a confirmed copy the message goes back to its queue.
        this.#o.logger.error("the dead-letter copy was not confirmed; requeued", {
          code: "SUTRA.BROKER.PUBLISH_FAILED",
          channel: this.#o.channel.declaration.name,
          deadLetterQueue: this.#o.options.deadLetterQueue,
          error: errorMessage(error),
        });
        acks.requeue(message.fields.deliveryTag);
        return;
      }
    }
    this.#budget.forget(messageId);
    await acks.ack(message.fields.deliveryTag);
  }

  /** Copies the message to the dead-letter destination with the diagnostic headers (confirmed). */
  async #deadLetter(ch: AmqpChannel, message: AmqpMessage, cause: Diagnostic): Promise<void> {
    const o = this.#o.options;
    const name = this.#o.channel.declaration.name;
    const p = message.properties;
    this.#o.logger.warn("dead-lettered", {
      channel: name,
      code: cause.code,
      message: cause.message,
      deadLetterQueue: o.deadLetterQueue,
    });
    await publishConfirmed(
      ch,
      { exchange: o.deadLetterExchange, routingKey: o.deadLetterQueue },
      new Uint8Array(message.content),
      {
        persistent: true,
        headers: { ...(p.headers ?? {}), ...deadLetterHeaders(cause, name) },
        ...(p.contentType ? { contentType: p.contentType } : {}),
        ...(p.contentEncoding ? { contentEncoding: p.contentEncoding } : {}),
        ...(p.messageId ? { messageId: p.messageId } : {}),
        ...(p.correlationId ? { correlationId: p.correlationId } : {}),
        ...(p.replyTo ? { replyTo: p.replyTo } : {}),
        ...(p.type ? { type: p.type } : {}),
        ...(p.appId ? { appId: p.appId } : {}),
        ...(p.timestamp ? { timestamp: p.timestamp } : {}),
      },
    );
  }
}

/** A stable key for a message's content (SHA-256, hex). */
async function contentKey(content: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(content));
  return `sha256:${
    Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}
