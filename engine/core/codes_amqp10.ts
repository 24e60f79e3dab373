/**
 * Diagnostic codes: the AMQP 1.0 transport (see docs/transports.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const AMQP10_CODES = {
  "SUTRA.AMQP10.BODY_UNREADABLE":
    "An inbound AMQP 1.0 message's body is an AMQP sequence (or mixes section kinds); it is poison.",
  "SUTRA.AMQP10.DEAD_LETTER_FAILED":
    "The channel's dead-letter address did not accept a poison message; the message is released and tried again.",
  "SUTRA.AMQP10.DESTINATION_INVALID":
    "An outbound destination is not amqp10://<channel>[/<address>] or names no usable address or connection.",
  "SUTRA.AMQP10.NO_CONNECTION":
    "An outbound amqp10 destination names no active amqp10 channel to take the connection from; the outbox retries.",
  "SUTRA.AMQP10.SEND_REJECTED":
    "The AMQP 1.0 peer rejected an outbound message; the outbox row is poisoned.",
  "SUTRA.AMQP10.STOPPED":
    "The consumer stopped while an on-complete message's instances still ran; the message was released for redelivery.",
} as const;
