/**
 * One `amqp10` channel's consumer: a receiver on the channel's source
 * address, settled by hand. Link credit is the prefetch: credit is given
 * back one by one as deliveries are settled, so at most `prefetch`
 * messages are ever unsettled. Each message goes through the engine's
 * intake and is then
 *
 * - `accepted` once the engine has it for good: on-persist when it is
 *   captured (after the commit), on-complete when every instance it started
 *   or advanced has ended (the deferred-ack registry's verdict);
 * - `released` (after a short backoff) on a transient refusal, until the
 *   channel's redelivery budget is spent;
 * - poison (unreadable, refused for good, budget spent, a failed instance):
 *   sent to the dead-letter address with the diagnostic in its application
 *   properties and then accepted, or `rejected` with the diagnostic in the
 *   error condition when the channel has no dead-letter address.
 *
 * The connection is kept with the shared backoff loop. A delivery still
 * unsettled when its connection drops is redelivered by the broker (to
 * this consumer or another), and inbox dedup answers the second copy.
 *
 * @module
 */
import type { Delivery, EventContext, Message, Receiver } from "rhea";
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";
import type { Logger } from "../../../engine/core/log.ts";
import type {
  AckVerdict,
  BoundChannel,
  DeliveryOutcome,
  TransportContext,
} from "../../../engine/core/transport.ts";
import {
  type BrokerVerdict,
  deadLetterHeaders,
  keepConnected,
  RedeliveryBudget,
  SerialRuns,
  sleep,
  verdictOf,
  verdictOfAck,
} from "../_broker/mod.ts";
import { retryAfterSeconds } from "../../../engine/runtime/tenancy/quotas.ts";
import { Amqp10Connection, DURABLE_TERMINUS } from "./_connection.ts";
import { deadLetterOf, inboundOf, outboundOf } from "./_message.ts";
import type { Amqp10ChannelOptions } from "./_options.ts";

/** The AMQP error condition a poison message is rejected with (no dead-letter address). */
export const REFUSED_CONDITION = "sutra:refused";

/** The broker action for one message, with what the budget needs to know about it. */
type Verdict = BrokerVerdict & {
  /** The message's id, for the in-process redelivery count. */
  readonly messageId?: string;
  /** Which delivery this was (1 for the first), for a requeue's wait. */
  readonly attempt?: number;
};

/** What a {@link ChannelConsumer} needs. */
export interface ChannelConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  readonly options: Amqp10ChannelOptions & { readonly address: string };
  /** The resolved connection URL. */
  readonly url: string;
  readonly logger: Logger;
}

/** Consumes one channel; {@link start} and {@link stop} may alternate (a singleton's lease). */
export class ChannelConsumer {
  readonly #o: ChannelConsumerOptions;
  readonly #budget: RedeliveryBudget;
  // A start waits for the last stop's drain, so two connections never consume at once.
  readonly #runs = new SerialRuns((signal) =>
    keepConnected((connected) => this.#session(connected, signal), {
      logger: this.#o.logger,
      what: `amqp10 channel '${this.#o.channel.declaration.name}'`,
      signal,
    })
  );

  constructor(o: ChannelConsumerOptions) {
    this.#o = o;
    this.#budget = new RedeliveryBudget({ maxDeliveries: o.options.maxDeliveries });
  }

  /** Starts consuming (again); a no-op while running. */
  start(): void {
    this.#runs.start();
  }

  /** Stops granting credit, lets the deliveries in hand finish, then closes the connection. */
  stop(): Promise<void> {
    return this.#runs.stop();
  }

  /** One connection's life: resolves when stopped, rejects with the reason when it is lost. */
  async #session(connected: () => void, signal: AbortSignal): Promise<void> {
    const connection = await Amqp10Connection.open(this.#o.url);
    const { address, prefetch } = this.#o.options;
    const receiver = connection.receiver({
      source: { address, durable: DURABLE_TERMINUS },
      autoaccept: false,
      credit_window: 0,
    });
    const inFlight = new Set<Promise<void>>();
    // Attached once per connection (rhea's own reconnect is off), so credit starts at zero.
    receiver.once("receiver_open", () => {
      connected();
      receiver.add_credit(prefetch);
    });
    receiver.on("message", (event: EventContext) => {
      const handled = this.#handle(connection, event, signal).finally(() => {
        inFlight.delete(handled);
        if (!signal.aborted && !connection.isClosed) replenish(receiver, prefetch, inFlight.size);
      });
      inFlight.add(handled);
    });
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    const lost = await Promise.race([connection.closed, stopped.then(() => undefined)]);
    if (lost !== undefined) throw new Error(lost);
    // Stopping: no more credit is granted; what is in hand is settled before the link goes.
    await Promise.all(inFlight);
    await connection.close();
  }

  async #handle(
    connection: Amqp10Connection,
    event: EventContext,
    signal: AbortSignal,
  ): Promise<void> {
    const delivery = event.delivery!;
    const message = event.message!;
    if (signal.aborted) return delivery.release();
    try {
      const verdict = await this.#verdict(connection, message, signal);
      await this.#settle(connection, delivery, message, verdict, signal);
    } catch (error) {
      // Unexpected: hand it back; the broker redelivers and dedup answers a copy already run.
      this.#o.logger.error("an amqp10 delivery could not be handled; released", {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        channel: this.#o.channel.declaration.name,
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      delivery.release();
    }
  }

  /** What to do with one message: the engine's answer, then the deferred verdict, then the budget. */
  async #verdict(
    connection: Amqp10Connection,
    message: Message,
    signal: AbortSignal,
  ): Promise<Verdict> {
    const { channel, context, options } = this.#o;
    const inbound = inboundOf({
      name: channel.declaration.name,
      idempotency: options.idempotency,
      ...(channel.declaration.cloudeventsMode
        ? { cloudeventsMode: channel.declaration.cloudeventsMode }
        : {}),
    }, message);
    if ("code" in inbound) return { action: "dead-letter", diagnostic: inbound };
    const messageId = inbound.idempotencyKey ?? inbound.headers["message-id"];
    const deferred = channel.ackMode === "on-complete" ? deferredAck() : undefined;
    const outcome = await context.deliver(
      deferred ? { ...inbound, deferral: deferred.deferral } : inbound,
    );
    let verdict = verdictOf(outcome);
    if (verdict.action === "ack") {
      const failed = await this.#reply(connection, message, outcome);
      if (failed) verdict = { action: "requeue", diagnostic: failed };
    }
    if (verdict.action === "ack" && outcome.kind === "settled" && deferred) {
      verdict = verdictOfAck(await Promise.race([deferred.heard, shutdown(signal)]));
    }
    if (verdict.action === "requeue") {
      const n = this.#budget.count({
        ...(messageId === undefined ? {} : { messageId }),
        redelivered: message.first_acquirer === false,
        ...(message.delivery_count ? { priorDeliveries: message.delivery_count } : {}),
      });
      if (this.#budget.spent(n) && !signal.aborted) {
        const cause = this.#budget.exhausted(n, verdict.diagnostic);
        return { action: "dead-letter", diagnostic: cause, ...(messageId ? { messageId } : {}) };
      }
      return { ...verdict, attempt: n, ...(messageId ? { messageId } : {}) };
    }
    return { ...verdict, ...(messageId ? { messageId } : {}) };
  }

  /** Sends an on-complete reply to `reply-to`; answers the diagnostic when it could not. */
  async #reply(
    connection: Amqp10Connection,
    request: Message,
    outcome: DeliveryOutcome,
  ): Promise<Diagnostic | undefined> {
    if (outcome.kind !== "settled" || !outcome.reply || !request.reply_to) return undefined;
    const correlation = request.correlation_id ?? request.message_id;
    const reply = outboundOf({
      destination: request.reply_to,
      headers: outcome.reply.headers,
      body: outcome.reply.body,
      ...(outcome.reply.contentType ? { contentType: outcome.reply.contentType } : {}),
      idempotencyKey: request.message_id === undefined
        ? crypto.randomUUID()
        : `reply:${request.message_id}`,
      attempt: 1,
    });
    const sent = await connection.send(request.reply_to, {
      ...reply,
      ...(correlation === undefined ? {} : { correlation_id: correlation }),
    });
    if (sent.kind === "accepted") return undefined;
    return diagnostic(
      "SUTRA.BROKER.REPLY_FAILED",
      `the reply to ${request.reply_to} was not accepted (${sent.error}); the request is released`,
      { attributes: { channel: this.#o.channel.declaration.name, replyTo: request.reply_to } },
    );
  }

  async #settle(
    connection: Amqp10Connection,
    delivery: Delivery,
    message: Message,
    verdict: Verdict,
    signal: AbortSignal,
  ): Promise<void> {
    const channel = this.#o.channel.declaration.name;
    switch (verdict.action) {
      case "ack":
        this.#budget.forget(verdict.messageId);
        return delivery.accept();
      case "requeue": {
        // Released at once the broker offers it straight back: wait a little first, and a
        // refusal that names its wait (a tenant quota) that long, as on every broker.
        const backoffMs = Math.min(5_000, 100 * 2 ** ((verdict.attempt ?? 1) - 1));
        const quotaMs = (retryAfterSeconds(verdict.diagnostic) ?? 0) * 1000;
        await sleep(Math.max(backoffMs, quotaMs), signal);
        return delivery.release();
      }
      case "dead-letter":
        break;
    }
    const headers = deadLetterHeaders(verdict.diagnostic, channel);
    const target = this.#o.options.deadLetterAddress;
    this.#o.logger.warn("an amqp10 message is poison", {
      code: verdict.diagnostic.code,
      channel,
      ...(target ? { deadLetterAddress: target } : {}),
    });
    if (!target) {
      this.#budget.forget(verdict.messageId);
      return delivery.reject({
        condition: REFUSED_CONDITION,
        description: `${verdict.diagnostic.code}: ${headers["sutra-diagnostic-message"]}`,
        info: headers,
      });
    }
    const sent = await connection.send(target, deadLetterOf(message, headers));
    if (sent.kind === "accepted") {
      this.#budget.forget(verdict.messageId);
      return delivery.accept();
    }
    this.#o.logger.error("the dead-letter address did not take a poison message; released", {
      code: "SUTRA.AMQP10.DEAD_LETTER_FAILED",
      channel,
      deadLetterAddress: target,
      error: sent.error,
    });
    await sleep(1_000, signal);
    delivery.release();
  }
}

/**
 * Gives credit back so that the deliveries in hand plus the credit the
 * broker holds come to `prefetch` again, in batches of a quarter of it:
 * RabbitMQ 3.10 takes a flow frame's credit as it stands, so a flow that
 * crosses transfers already on the wire lets it send a few more than
 * granted; fewer flow frames make that rarer.
 */
function replenish(receiver: Receiver, prefetch: number, inHand: number): void {
  const credit = (receiver as Receiver & { credit: number }).credit;
  const missing = prefetch - inHand - credit;
  if (missing >= Math.max(1, Math.floor(prefetch / 4))) receiver.add_credit(missing);
}

/** A deferral whose verdict can be awaited, even when the engine settles it before `deliver` returns. */
function deferredAck(): { deferral: { settle(v: AckVerdict): void }; heard: Promise<AckVerdict> } {
  let settle!: (verdict: AckVerdict) => void;
  const heard = new Promise<AckVerdict>((resolve) => settle = resolve);
  return { deferral: { settle }, heard };
}

/** Resolves with a transient nack when the consumer stops: the held message is released. */
function shutdown(signal: AbortSignal): Promise<AckVerdict> {
  const verdict: AckVerdict = {
    kind: "nack",
    permanent: false,
    diagnostic: diagnostic(
      "SUTRA.AMQP10.STOPPED",
      "the consumer stopped while the message's instances were still running; it is released for redelivery",
    ),
  };
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(verdict);
    signal.addEventListener("abort", () => resolve(verdict), { once: true });
  });
}
