/**
 * One consumer per pubsub channel: a streaming pull on the channel's
 * subscription (the client library's `subscription.on('message')`, which
 * also keeps each message's lease alive while it is in hand), each message
 * handed to the engine and settled with the shared broker verdicts:
 *
 * - ack once the step committed (on-persist: the capture) or the instances
 *   ended (on-complete: held meanwhile, the client extending the ack
 *   deadline until then);
 * - requeue (a nack: the service redelivers it at once) while the
 *   redelivery budget lasts, counted from the service's delivery attempts
 *   when the subscription has a dead-letter policy;
 * - dead-letter: we publish the message ourselves to the channel's
 *   dead-letter topic with the `sutra-diagnostic-*` attributes, and ack it
 *   once the publish is accepted. The subscription's own dead-letter policy
 *   forwards a message only after a number of nacks and cannot say why, so
 *   it stays a backstop one attempt past our budget (a message whose copy
 *   could not be published is nacked and ends there eventually).
 *
 * Messages with an ordering key run one after the other per key (a lane per
 * key); others run concurrently up to the flow-control window.
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
  contentTypeOf,
  deliveryHeaders,
  Duration,
  type Message,
  openClient,
  type PubSub,
} from "./_client.ts";
import type { PubSubChannelOptions } from "./options.ts";

const STOPPED = Symbol("stopped");
/** How long a stopping consumer waits for deliveries in flight before giving them back. */
const CLOSE_TIMEOUT_S = 30;
/** gRPC ALREADY_EXISTS. */
const ALREADY_EXISTS = 6;

/** What a consumer needs. */
export interface ConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  readonly options: PubSubChannelOptions;
  readonly logger: Logger;
}

/** Creates the topic, the dead-letter topic and the subscription unless they exist. */
export async function declareTopology(
  client: PubSub,
  project: string,
  o: PubSubChannelOptions,
): Promise<void> {
  for (const topic of [o.topic, o.deadLetterTopic]) {
    const [exists] = await client.topic(topic).exists();
    if (!exists) await ignoreExisting(client.createTopic(topic));
  }
  const [exists] = await client.subscription(o.subscription).exists();
  if (exists) return;
  await ignoreExisting(
    client.topic(o.topic).createSubscription(o.subscription, {
      ackDeadlineSeconds: o.ackDeadlineSeconds,
      enableMessageOrdering: o.ordering,
      deadLetterPolicy: {
        deadLetterTopic: `projects/${project}/topics/${o.deadLetterTopic}`,
        // One past our budget (within the service's 5..100): a backstop, see the module doc.
        maxDeliveryAttempts: Math.min(100, Math.max(5, o.maxDeliveries + 1)),
      },
    }),
  );
}

/** Another replica created it first: fine. */
async function ignoreExisting(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if ((error as { code?: number }).code !== ALREADY_EXISTS) throw error;
  }
}

/** A running channel consumer. */
export class PubSubConsumer {
  readonly #o: ConsumerOptions;
  readonly #budget: RedeliveryBudget;
  readonly #inFlight = new Set<Promise<void>>();
  /** The last delivery queued per ordering key. */
  readonly #lanes = new Map<string, Promise<void>>();
  readonly #life: ConsumerLoop;
  /** The current session's client (dead-letter copies are published with it). */
  #client: PubSub | undefined;

  constructor(options: ConsumerOptions) {
    this.#o = options;
    this.#budget = new RedeliveryBudget({ maxDeliveries: options.options.maxDeliveries });
    this.#life = new ConsumerLoop({
      logger: options.logger,
      what: `pubsub channel '${options.channel.declaration.name}'`,
      session: (connected) => this.#session(connected),
    });
  }

  /** Starts consuming (again), opening a new client whenever the subscription fails. */
  start(): void {
    this.#life.start();
  }

  /** Stops pulling, lets the deliveries in flight settle, and closes the client. */
  stop(): Promise<void> {
    return this.#life.stop();
  }

  /** One client's life: declare, pull until the subscription fails or the consumer stops. */
  async #session(connected: () => void): Promise<void> {
    const o = this.#o.options;
    const { client, project } = await openClient(this.#o.context, o);
    this.#client = client;
    try {
      if (this.#life.signal.aborted) return;
      if (o.declare) await declareTopology(client, project, o);
      const deadline = Duration.from({ seconds: o.ackDeadlineSeconds });
      const subscription = client.subscription(o.subscription, {
        minAckDeadline: deadline,
        maxAckDeadline: deadline,
        // Held (on-complete) messages keep their lease as long as the engine may hold them.
        maxExtensionTime: Duration.from({
          milliseconds: Math.max(this.#o.context.ackHoldMs, 60_000) + 60_000,
        }),
        flowControl: { maxMessages: o.maxMessages, allowExcessMessages: false },
        closeOptions: {
          behavior: "WAIT",
          timeout: Duration.from({ seconds: CLOSE_TIMEOUT_S }),
        },
      });
      let failure: unknown;
      const ended = new Promise<void>((resolve) => {
        subscription.on("error", (error: unknown) => {
          failure = error;
          resolve();
        });
        subscription.on("close", () => resolve());
      });
      subscription.on("message", (message: Message) => this.#receive(message));
      connected();
      this.#o.logger.info("consuming", {
        channel: this.#o.channel.declaration.name,
        subscription: o.subscription,
      });
      await Promise.race([ended, this.#stopped()]);
      // Stopping: deliveries in flight settle first (held ones are handed back), and close
      // flushes their acks. A failed subscription does not wait for held instances: close
      // gives the client's inventory its timeout, then nacks what is left.
      if (this.#life.signal.aborted) await Promise.allSettled([...this.#inFlight]);
      await subscription.close().catch(() => {});
      if (failure !== undefined && !this.#life.signal.aborted) throw failure;
    } finally {
      this.#client = undefined;
      await client.close().catch(() => {});
    }
  }

  #receive(message: Message): void {
    if (this.#life.signal.aborted) {
      message.nack();
      return;
    }
    const key = message.orderingKey;
    let work: Promise<void>;
    if (key) {
      // Same key: after the previous message of that key has settled.
      work = (this.#lanes.get(key) ?? Promise.resolve()).then(() => this.#handle(message));
      this.#lanes.set(key, work);
      void work.finally(() => {
        if (this.#lanes.get(key) === work) this.#lanes.delete(key);
      });
    } else {
      work = this.#handle(message);
    }
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** One message: to the engine, then ack / requeue / dead-letter. Never rejects. */
  async #handle(message: Message): Promise<void> {
    try {
      await this.#act(message, await this.#verdict(message));
    } catch (error) {
      message.nack();
      this.#o.logger.warn("a delivery could not be settled; handed back", {
        channel: this.#o.channel.declaration.name,
        error: errorMessage(error),
      });
    }
  }

  #stopped(): Promise<typeof STOPPED> {
    const signal = this.#life.signal;
    return new Promise((resolve) => {
      if (signal.aborted) resolve(STOPPED);
      else signal.addEventListener("abort", () => resolve(STOPPED), { once: true });
    });
  }

  async #verdict(message: Message): Promise<BrokerVerdict | typeof ABANDON> {
    if (this.#life.signal.aborted) return ABANDON;
    return await deliverForVerdict({
      context: this.#o.context,
      channel: this.#o.channel,
      signal: this.#life.signal,
      delivery: (deferral) => this.#delivery(message, deferral),
    });
  }

  /** The engine's view of a message; a structured CloudEvent is unwrapped (or refused). */
  #delivery(
    message: Message,
    deferral: InboundDelivery["deferral"],
  ): InboundDelivery | Diagnostic {
    const headers = deliveryHeaders(message);
    const attribute = this.#o.options.idempotencyAttribute;
    const key = attribute === "" ? message.id : message.attributes[attribute];
    const contentType = contentTypeOf(message);
    const delivery: InboundDelivery = {
      channel: this.#o.channel.declaration.name,
      body: new Uint8Array(message.data),
      headers,
      ...(contentType === undefined ? {} : { contentType }),
      ...(key === undefined || key === "" ? {} : { idempotencyKey: key }),
      ...(message.orderingKey ? { orderingKey: message.orderingKey } : {}),
      ...(deferral ? { deferral } : {}),
    };
    return unwrapStructured(delivery, this.#o.channel);
  }

  /** Carries a verdict out; a requeue past the budget becomes a dead-letter. */
  async #act(message: Message, verdict: BrokerVerdict | typeof ABANDON): Promise<void> {
    if (verdict === ABANDON) {
      message.nack();
      return;
    }
    if (verdict.action === "requeue") {
      const n = this.#budget.count({
        messageId: message.id,
        // The service counts attempts (from 1) only under a dead-letter policy; 0 means unknown.
        ...(message.deliveryAttempt > 0 ? { priorDeliveries: message.deliveryAttempt - 1 } : {}),
      });
      if (!this.#budget.spent(n)) {
        this.#o.logger.info("requeued", {
          channel: this.#o.channel.declaration.name,
          code: verdict.diagnostic.code,
          delivery: n,
        });
        message.nack();
        return;
      }
      verdict = {
        action: "dead-letter",
        diagnostic: this.#budget.exhausted(n, verdict.diagnostic),
      };
    }
    if (verdict.action === "dead-letter") {
      try {
        await this.#deadLetter(message, verdict.diagnostic);
      } catch (error) {
        // Never dropped: without an accepted copy the message goes back to the subscription.
        this.#o.logger.error("the dead-letter copy was not accepted; handed back", {
          code: "SUTRA.BROKER.PUBLISH_FAILED",
          channel: this.#o.channel.declaration.name,
          deadLetterTopic: this.#o.options.deadLetterTopic,
          error: errorMessage(error),
        });
        message.nack();
        return;
      }
    }
    this.#budget.forget(message.id);
    message.ack();
  }

  /** Publishes a copy to the dead-letter topic with the diagnostic attributes. */
  async #deadLetter(message: Message, cause: Diagnostic): Promise<void> {
    const o = this.#o.options;
    const name = this.#o.channel.declaration.name;
    this.#o.logger.warn("dead-lettered", {
      channel: name,
      code: cause.code,
      message: cause.message,
      deadLetterTopic: o.deadLetterTopic,
    });
    const client = this.#client;
    if (!client) throw new Error("the subscription's client is closed");
    await client.topic(o.deadLetterTopic).publishMessage({
      data: message.data,
      attributes: {
        ...message.attributes,
        ...deadLetterHeaders(cause, name),
        "sutra-source-message-id": message.id,
      },
    });
  }
}
