/**
 * One consumer per sqs channel. It long-polls the channel's queue
 * (`WaitTimeSeconds`), keeping at most `prefetch` messages in hand, hands
 * each to the engine and acts on the answer with the shared broker
 * verdicts:
 *
 * - ack → delete (batched, `DeleteMessageBatch`), after the commit that made the message durable
 *   (on-persist), or once every instance it started or advanced has ended
 *   (on-complete); until then its visibility is renewed
 *   ({@link VisibilityKeeper}) so no other consumer receives it;
 * - requeue → the message is made visible again after a growing delay
 *   (`retry-delay` doubled per receive), until SQS's
 *   `ApproximateReceiveCount` reaches the channel's `max-deliveries`;
 * - dead-letter → a copy with the diagnostic attributes goes to the
 *   channel's dead-letter queue, then the original is deleted (never
 *   deleted without a copy the dead-letter queue accepted).
 *
 * On a FIFO queue the messages of one `MessageGroupId` run one after
 * another in their queue order ({@link GroupOrder}). A failed receive
 * (SQS unreachable) is retried with the shared backoff; the messages in
 * hand carry on meanwhile.
 *
 * @module
 */
import {
  ChangeMessageVisibilityCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
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
  deadLetterHeaders,
  deliverForVerdict,
  keepConnected,
  RedeliveryBudget,
  SerialRuns,
  unwrapStructured,
} from "../_broker/mod.ts";
import {
  bodyOf,
  deliveryHeaders,
  type Message,
  PACKED_HEADERS,
  queueUrl,
  receiveCount,
  type SQSClient,
  sqsClient,
  TRANSFER_ENCODING,
} from "./_client.ts";
import { DeleteBatcher } from "./_deletes.ts";
import { GroupOrder } from "./_groups.ts";
import { VisibilityKeeper } from "./_visibility.ts";
import { resolveConnection, type SqsChannelOptions } from "./options.ts";
import { replyDestination } from "./sink.ts";

/** The longest a transient refusal keeps a message hidden before its retry, seconds. */
const MAX_RETRY_DELAY_S = 900;

/** What a consumer needs. */
export interface ConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  readonly options: SqsChannelOptions;
  readonly logger: Logger;
}

/** The queue a run reads, once it has been reached. */
interface Reached {
  readonly client: SQSClient;
  readonly url: string;
  readonly keeper: VisibilityKeeper;
  readonly deletes: DeleteBatcher;
}

/** A running channel consumer; {@link start} and {@link stop} may alternate (a singleton's lease). */
export class ChannelConsumer {
  readonly #o: ConsumerOptions;
  readonly #budget: RedeliveryBudget;
  readonly #groups = new GroupOrder();
  readonly #inFlight = new Set<Promise<void>>();
  // A start waits for the last stop's drain, so two runs never receive at once.
  readonly #runs = new SerialRuns((signal) => this.#receiveAll(signal));
  #dlqUrl: Promise<string> | undefined;

  constructor(options: ConsumerOptions) {
    this.#o = options;
    this.#budget = new RedeliveryBudget({ maxDeliveries: options.options.maxDeliveries });
  }

  /** Starts receiving (again); a no-op while running. */
  start(): void {
    this.#runs.start();
  }

  /**
   * Stops receiving and lets the messages in hand finish; an on-complete hold
   * still waiting is left to its visibility timeout. Then closes the client.
   */
  stop(): Promise<void> {
    return this.#runs.stop();
  }

  /** One run: reach the queue, then receive until stopped; SQS errors back off and retry. */
  async #receiveAll(signal: AbortSignal): Promise<void> {
    const o = this.#o.options;
    const name = this.#o.channel.declaration.name;
    let reached: Reached | undefined;
    try {
      await keepConnected(async (connected) => {
        reached ??= await this.#reach(signal);
        await this.#receiveLoop(reached, signal, () => {
          // Reached once a receive went through, so an outage backs off instead of looping.
          connected();
          this.#o.logger.info("consuming", { channel: name, queue: o.queue });
        });
      }, { logger: this.#o.logger, what: `sqs channel '${name}'`, signal });
    } finally {
      await Promise.allSettled([...this.#inFlight]);
      if (reached) {
        await reached.keeper.stop();
        reached.client.destroy();
      }
      this.#dlqUrl = undefined;
    }
  }

  /** Resolves the connection and the queue URL (creating the queues when `declare`). */
  async #reach(signal: AbortSignal): Promise<Reached> {
    const o = this.#o.options;
    const connection = await resolveConnection(this.#o.context, o.connection);
    const client = sqsClient(connection, (o.waitSeconds + 15) * 1000);
    try {
      if (signal.aborted) throw new Error("stopped");
      const url = await queueUrl(client, o.queue, o.declare);
      if (o.declare) {
        this.#dlqUrl = Promise.resolve(await queueUrl(client, o.deadLetterQueue, true));
      }
      const keeper = new VisibilityKeeper({
        client,
        queueUrl: url,
        visibilitySeconds: o.visibilitySeconds,
        logger: this.#o.logger,
        channel: this.#o.channel.declaration.name,
      });
      return { client, url, keeper, deletes: new DeleteBatcher(client, url) };
    } catch (error) {
      client.destroy();
      throw error;
    }
  }

  /**
   * Long-polls while stopping has not begun, calling `received` after the
   * first receive that went through; throws what a failed receive threw.
   */
  async #receiveLoop(q: Reached, signal: AbortSignal, received: () => void): Promise<void> {
    const o = this.#o.options;
    let first = true;
    while (!signal.aborted) {
      while (this.#inFlight.size >= o.prefetch && !signal.aborted) {
        await Promise.race(this.#inFlight);
      }
      if (signal.aborted) return;
      let messages: Message[];
      try {
        const out = await q.client.send(
          new ReceiveMessageCommand({
            QueueUrl: q.url,
            MaxNumberOfMessages: Math.min(10, o.prefetch - this.#inFlight.size),
            WaitTimeSeconds: o.waitSeconds,
            VisibilityTimeout: o.visibilitySeconds,
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
          { abortSignal: signal },
        );
        messages = out.Messages ?? [];
        if (first) received();
        first = false;
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      for (const message of messages) this.#accept(q, message, signal);
    }
  }

  /** Takes one received message in hand: held invisible, run in its group's order. */
  #accept(q: Reached, message: Message, signal: AbortSignal): void {
    const release = q.keeper.hold(message.ReceiptHandle!);
    const group = this.#o.options.fifo ? message.Attributes?.MessageGroupId : undefined;
    const work = this.#groups.submit(group, async (broken) => {
      try {
        if (signal.aborted) return false;
        // An earlier message of the group went back: this one follows it, unprocessed.
        if (broken) {
          await release();
          return await this.#handBack(q, message, 0);
        }
        return await this.#handle(q, message, signal, release);
      } finally {
        void release();
      }
    });
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** One message: to the engine, then delete / delay / dead-letter. Answers whether it was consumed. */
  async #handle(
    q: Reached,
    message: Message,
    signal: AbortSignal,
    release: () => Promise<void>,
  ): Promise<boolean> {
    try {
      const verdict = await this.#verdict(message, signal);
      await release();
      // Stopping: what is not settled for good is left to its visibility timeout. Not handed
      // back: the long poll the stop cut short may still take a message made visible meanwhile.
      if (verdict === ABANDON || (verdict.action === "requeue" && signal.aborted)) return false;
      return await this.#act(q, message, verdict);
    } catch (error) {
      // Unsettled, the message becomes visible when its timeout runs out; dedup answers a copy.
      this.#o.logger.warn("an sqs message could not be settled; SQS will redeliver it", {
        channel: this.#o.channel.declaration.name,
        error: errorMessage(error),
      });
      return false;
    }
  }

  #verdict(message: Message, signal: AbortSignal): Promise<BrokerVerdict | typeof ABANDON> {
    return deliverForVerdict({
      context: this.#o.context,
      channel: this.#o.channel,
      signal,
      delivery: (deferral) => this.#delivery(message, deferral),
    });
  }

  /** The engine's view of a message; a structured CloudEvent is unwrapped (or refused). */
  #delivery(message: Message, deferral: InboundDelivery["deferral"]): InboundDelivery | Diagnostic {
    const headers = deliveryHeaders(message);
    const contentType = headers["content-type"];
    const key = this.#idempotencyKey(message, headers);
    const group = this.#o.options.fifo ? message.Attributes?.MessageGroupId : undefined;
    const channel = this.#o.channel.declaration.name;
    const replyTo = headers["reply-to"];
    const correlationId = headers["correlation-id"] ?? headers["message-id"];
    const reply: Record<string, string> = correlationId ? { "correlation-id": correlationId } : {};
    const delivery: InboundDelivery = {
      channel,
      body: bodyOf(message),
      headers,
      ...(contentType === undefined ? {} : { contentType }),
      ...(key === undefined || key === "" ? {} : { idempotencyKey: key }),
      ...(group === undefined ? {} : { orderingKey: group }),
      ...(deferral ? { deferral } : {}),
      ...(replyTo
        ? { replyTo: { destination: replyDestination(replyTo, channel), headers: reply } }
        : {}),
    };
    return unwrapStructured(delivery, this.#o.channel);
  }

  #idempotencyKey(message: Message, headers: Record<string, string>): string | undefined {
    const source = this.#o.options.idempotency;
    switch (source.from) {
      case "attribute":
        return headers[source.name];
      case "deduplication-id":
        return message.Attributes?.MessageDeduplicationId ?? message.MessageId;
      case "message-id":
        return (source.attribute && headers[source.attribute]) || message.MessageId;
    }
  }

  /** Carries a verdict out; a requeue past the budget becomes a dead-letter. */
  async #act(
    q: Reached,
    message: Message,
    verdict: BrokerVerdict,
  ): Promise<boolean> {
    const name = this.#o.channel.declaration.name;
    if (verdict.action === "requeue") {
      // SQS counts receives itself: the bound holds across restarts and replicas.
      const n = this.#budget.count({ priorDeliveries: receiveCount(message) - 1 });
      if (!this.#budget.spent(n)) {
        const delayS = Math.min(
          MAX_RETRY_DELAY_S,
          Math.ceil((this.#o.options.retryDelayMs * 2 ** (n - 1)) / 1000),
        );
        this.#o.logger.info("requeued", {
          channel: name,
          code: verdict.diagnostic.code,
          delivery: n,
          delaySeconds: delayS,
        });
        return await this.#handBack(q, message, delayS);
      }
      verdict = {
        action: "dead-letter",
        diagnostic: this.#budget.exhausted(n, verdict.diagnostic),
      };
    }
    if (verdict.action === "dead-letter") {
      try {
        await this.#deadLetter(q, message, verdict.diagnostic);
      } catch (error) {
        // Never dropped: without a copy on the dead-letter queue the message is retried.
        this.#o.logger.error("the dead-letter copy was not accepted; the message is retried", {
          code: "SUTRA.BROKER.PUBLISH_FAILED",
          channel: name,
          deadLetterQueue: this.#o.options.deadLetterQueue,
          error: errorMessage(error),
        });
        await this.#handBack(q, message, Math.ceil(this.#o.options.retryDelayMs / 1000));
        return false;
      }
    }
    try {
      await q.deletes.delete(message.ReceiptHandle!);
    } catch (error) {
      // Done all the same: the copy SQS offers again is answered by inbox dedup.
      this.#o.logger.warn("a settled message could not be deleted; SQS will offer it again", {
        code: "SUTRA.BROKER.CONNECTION_LOST",
        channel: name,
        error: errorMessage(error),
      });
    }
    return true;
  }

  /** Makes the message visible again after `delaySeconds`; answers false (not consumed). */
  async #handBack(q: Reached, message: Message, delaySeconds: number): Promise<boolean> {
    try {
      await q.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: q.url,
          ReceiptHandle: message.ReceiptHandle!,
          VisibilityTimeout: delaySeconds,
        }),
      );
    } catch (error) {
      // It becomes visible anyway once its timeout runs out.
      this.#o.logger.warn("a message could not be handed back; it returns after its timeout", {
        channel: this.#o.channel.declaration.name,
        error: errorMessage(error),
      });
    }
    return false;
  }

  /** Copies the message to the dead-letter queue with the diagnostic attributes. */
  async #deadLetter(q: Reached, message: Message, cause: Diagnostic): Promise<void> {
    const o = this.#o.options;
    const name = this.#o.channel.declaration.name;
    this.#o.logger.warn("dead-lettered", {
      channel: name,
      code: cause.code,
      message: cause.message,
      deadLetterQueue: o.deadLetterQueue,
    });
    this.#dlqUrl ??= queueUrl(q.client, o.deadLetterQueue);
    const url = this.#dlqUrl;
    // A failed lookup is tried again next time.
    url.catch(() => {
      if (this.#dlqUrl === url) this.#dlqUrl = undefined;
    });
    const id = message.Attributes?.MessageDeduplicationId ?? message.MessageId!;
    await q.client.send(
      new SendMessageCommand({
        QueueUrl: await url,
        MessageBody: message.Body ?? "",
        MessageAttributes: deadLetterAttributes(message, deadLetterHeaders(cause, name)),
        ...(o.fifo
          ? {
            MessageGroupId: message.Attributes?.MessageGroupId ?? name,
            MessageDeduplicationId: id,
          }
          : {}),
      }),
    );
  }
}

/**
 * The dead-letter copy's attributes: the diagnostic ones each on its own,
 * beside the original attributes, or beside those packed into
 * `sutra-headers` when together they would pass SQS's ten.
 */
function deadLetterAttributes(
  message: Message,
  diagnostic: Record<string, string>,
): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(diagnostic)) {
    out[name] = { DataType: "String", StringValue: value };
  }
  const original = message.MessageAttributes ?? {};
  if (Object.keys(original).length + Object.keys(out).length <= 10) return { ...original, ...out };
  // The body's encoding stays readable where bodyOf looks for it.
  const { [TRANSFER_ENCODING]: encoding, ...rest } = original;
  if (encoding) out[TRANSFER_ENCODING] = encoding;
  const packed: Record<string, string> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (name === PACKED_HEADERS && value.StringValue) {
      try {
        Object.assign(packed, JSON.parse(value.StringValue));
        continue;
      } catch {
        // kept as it is below
      }
    }
    if (value.StringValue !== undefined) packed[name] = value.StringValue;
  }
  return { ...out, [PACKED_HEADERS]: { DataType: "String", StringValue: JSON.stringify(packed) } };
}
