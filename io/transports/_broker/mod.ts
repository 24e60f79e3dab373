/**
 * What every queue transport (RabbitMQ, AMQP 1.0, files, …) shares, so that
 * a message on any broker gets the same treatment:
 *
 * - {@link verdictOf} / {@link verdictOfAck}: the engine's answer for one
 *   delivery → ack, requeue or dead-letter, with the diagnostic headers
 *   ({@link deadLetterHeaders}: `sutra-diagnostic-code`,
 *   `sutra-diagnostic-message`, `sutra-diagnostic-channel`) a dead-lettered
 *   message carries;
 * - {@link RedeliveryBudget}: how many deliveries a message gets before a
 *   transient refusal turns into a dead-letter
 *   (`SUTRA.BROKER.REDELIVERY_EXHAUSTED`);
 * - {@link keepConnected} / {@link Backoff}: reconnect with capped, jittered
 *   exponential backoff when the connection drops or cannot be made;
 * - {@link singletonGate}: consume only while this replica holds the
 *   channel's lease (`singleton: true`), via the SPI's
 *   `TransportContext.lease`;
 * - {@link ChannelConsumers}: one consumer per bound channel, following
 *   deploys (a channel gone or changed stops its consumer, a new one gets
 *   one, a channel that cannot be consumed is reported once), with
 *   {@link startConsumer} starting it behind the {@link singletonGate} of a
 *   `singleton: true` channel;
 * - {@link ConsumerLoop}: a consumer's start/stop around
 *   {@link keepConnected}, draining what is in hand on stop;
 * - {@link SerialRuns}: start/stop for a consumer whose runs take their
 *   own abort signal, a run starting only once the last one ended;
 * - {@link deliverForVerdict}: deliver one message and hear its verdict
 *   (waiting for the instances on `on-complete`, {@link ABANDON} when the
 *   consumer stops first), after {@link unwrapStructured} unwrapped a
 *   structured CloudEvent;
 * - {@link brokerTransport}: the transport factory built on them, given a
 *   transport's option reader, consumer and sink;
 * - CloudEvents: {@link inboundHeaderName} / {@link outboundHeaderName} for
 *   binary mode, {@link unwrapCloudEvent} for structured mode;
 * - {@link addHeaders} / {@link headerText}: typed broker headers → the
 *   delivery's lower-case string headers;
 * - {@link destinationInvalid} / {@link publishFailed}: a sink's poison and
 *   retry answers;
 * - {@link namedChannel} / {@link firstValidOptions}: the channel whose
 *   settings a sink publishes with;
 * - {@link OptionReader}: a channel's `options:` block, with
 *   `SUTRA.BROKER.OPTIONS_INVALID` for what is wrong.
 *
 * A typical consumer loop:
 *
 * ```ts
 * const outcome = await context.deliver({ channel, body, headers, idempotencyKey, deferral });
 * let verdict = verdictOf(outcome); // or verdictOfAck(await deferred) on on-complete
 * if (verdict.action === "requeue") {
 *   const n = budget.count({ messageId, priorDeliveries, redelivered });
 *   if (budget.spent(n)) verdict = { action: "dead-letter", diagnostic: budget.exhausted(n, verdict.diagnostic) };
 * }
 * // ack / requeue / publish to the dead-letter destination with deadLetterHeaders(...), then ack
 * ```
 *
 * Request/reply: a transport that hears a reply address on the inbound
 * message (AMQP `reply-to`) passes it as `InboundDelivery.replyTo` (an
 * outbox destination of its own scheme plus the correlation header); the
 * engine writes the step's `q:reply` to the outbox for it, in the step's
 * commit, and the transport's sink publishes it.
 *
 * @module
 */
export {
  type BrokerVerdict,
  deadLetterHeaders,
  DIAGNOSTIC_CHANNEL_HEADER,
  DIAGNOSTIC_CODE_HEADER,
  DIAGNOSTIC_MESSAGE_HEADER,
  TRANSIENT_NOT_FOUND,
  verdictOf,
  verdictOfAck,
} from "./verdict.ts";
export {
  type DeliveryHistory,
  RedeliveryBudget,
  type RedeliveryBudgetOptions,
} from "./redelivery.ts";
export {
  Backoff,
  type BackoffOptions,
  keepConnected,
  type KeepConnectedOptions,
  sleep,
} from "./backoff.ts";
export { type SingletonGate, singletonGate, type SingletonGateOptions } from "./singleton.ts";
export {
  inboundHeaderName,
  isStructuredCloudEvent,
  outboundHeaderName,
  unwrapCloudEvent,
} from "./cloudevents.ts";
export { addHeaders, headerText } from "./headers.ts";
export {
  type BrokerChannelOptions,
  CONSUME_OPTION,
  optionInvalid,
  OptionReader,
} from "./options.ts";
export {
  ChannelConsumers,
  type ChannelConsumersOptions,
  channelIdentity,
  type ReportOnce,
  type RunningConsumer,
  startConsumer,
  type StartConsumerOptions,
} from "./channel_consumers.ts";
export { brokerTransport, type BrokerTransportOptions } from "./broker_transport.ts";
export {
  ABANDON,
  deliverForVerdict,
  type DeliverForVerdictOptions,
  unwrapStructured,
} from "./deliver.ts";
export { ConsumerLoop, type ConsumerLoopOptions } from "./consumer_loop.ts";
export { type Run, SerialRuns } from "./serial_runs.ts";
export { destinationInvalid, publishFailed } from "./sink_results.ts";
export { firstValidOptions, namedChannel } from "./sink_channels.ts";
