/**
 * Diagnostic codes: broker transports (RabbitMQ and shared broker behaviour) (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const BROKER_CODES = {
  "SUTRA.BROKER.CONNECTION_LOST":
    "A broker connection dropped or could not be made; the transport reconnects with backoff.",
  "SUTRA.BROKER.DESTINATION_INVALID":
    "An outbound broker destination cannot be parsed (e.g. not rabbitmq://<exchange>/<routing-key>).",
  "SUTRA.BROKER.LOGIN_REFUSED":
    "The brokers refused a channel's login (a wrong username or password, a mechanism they do not enable); it retries with backoff.",
  "SUTRA.BROKER.OPTIONS_INVALID":
    "A broker channel's options block has a wrong or unknown key; that channel is not consumed.",
  "SUTRA.BROKER.PUBLISH_FAILED":
    "The broker did not confirm a publish (nack, returned or connection lost); the outbox retries it.",
  "SUTRA.BROKER.REDELIVERY_EXHAUSTED":
    "A message was refused transiently on every delivery its channel's budget allows; it was dead-lettered.",
  "SUTRA.BROKER.REPLY_FAILED":
    "A reply a broker transport publishes itself (no outbox reply route) was not confirmed; the request is requeued.",
} as const;
