/**
 * What a queue transport does with one delivery once the engine has
 * answered: acknowledge it, hand it back to the broker for another try, or
 * move it to the dead-letter destination with the diagnostic that explains
 * why. Transport-neutral: each broker maps the three actions to its own
 * frames (AMQP 0-9-1 ack / nack+requeue / publish-to-DLX then ack; AMQP 1.0
 * accepted / released / rejected; a file moving to `done/` or `failed/`).
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";
import type { AckVerdict, DeliveryOutcome, RefusalClass } from "../../../engine/core/transport.ts";

/** Header naming the `SUTRA.*` code a dead-lettered message was refused with. */
export const DIAGNOSTIC_CODE_HEADER = "sutra-diagnostic-code";
/** Header carrying that diagnostic's human-readable message. */
export const DIAGNOSTIC_MESSAGE_HEADER = "sutra-diagnostic-message";
/** Header naming the channel the message was refused on. */
export const DIAGNOSTIC_CHANNEL_HEADER = "sutra-diagnostic-channel";

/** The one action a transport takes on a delivery. */
export type BrokerVerdict =
  | { readonly action: "ack" }
  /** Give it back: a later attempt can succeed (spends one unit of the redelivery budget). */
  | { readonly action: "requeue"; readonly diagnostic: Diagnostic }
  /** Poison: park it on the dead-letter destination with {@link deadLetterHeaders}. */
  | { readonly action: "dead-letter"; readonly diagnostic: Diagnostic };

/**
 * Refusals another attempt can get past. `not-found` is here too, but only
 * for a relay whose instance may not exist yet, or a channel whose
 * deployment is not active yet (see {@link TRANSIENT_NOT_FOUND}); everything
 * else — malformed, too-large, rejected, conflict — is poison.
 */
const TRANSIENT: ReadonlySet<RefusalClass> = new Set(["retry", "overloaded", "failed"]);

/**
 * `not-found` codes that can change with time: a channel not (yet) served by
 * an active deployment, and a relay arriving before the instance that waits
 * for it has committed. Both are retried within the redelivery budget, then
 * dead-lettered. A message type no process subscribes to is poison at once.
 */
export const TRANSIENT_NOT_FOUND: ReadonlySet<string> = new Set([
  "SUTRA.RESOLVE.CHANNEL.UNKNOWN",
  "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND",
]);

/**
 * The verdict for the intake outcome. `captured` (on-persist) is an ack:
 * the message is durable in the inbox. `settled` is an ack too unless the
 * delivery carried a deferral on an on-complete channel: then the
 * transport waits for {@link verdictOfAck}.
 */
export function verdictOf(outcome: DeliveryOutcome): BrokerVerdict {
  if (outcome.kind !== "refused") return { action: "ack" };
  const first = outcome.diagnostics[0] ??
    diagnostic("SUTRA.RUNTIME.UNEXPECTED", `refused (${outcome.refusal})`);
  const transient = TRANSIENT.has(outcome.refusal) ||
    (outcome.refusal === "not-found" && TRANSIENT_NOT_FOUND.has(first.code));
  return transient
    ? { action: "requeue", diagnostic: first }
    : { action: "dead-letter", diagnostic: first };
}

/**
 * The verdict for a deferred acknowledgement (on-complete): a failed
 * instance is poison (a redelivery would be answered the same way by inbox
 * dedup); a hold the engine gave up (timeout, overflow, shutdown) is
 * requeued so the broker offers it again.
 */
export function verdictOfAck(verdict: AckVerdict): BrokerVerdict {
  if (verdict.kind === "ack") return { action: "ack" };
  return verdict.permanent
    ? { action: "dead-letter", diagnostic: verdict.diagnostic }
    : { action: "requeue", diagnostic: verdict.diagnostic };
}

/** The headers a dead-lettered message carries (added to its own). */
export function deadLetterHeaders(
  cause: Diagnostic,
  channel: string,
): Record<string, string> {
  return {
    [DIAGNOSTIC_CODE_HEADER]: cause.code,
    // Broker headers are short-string friendly: one line, bounded.
    [DIAGNOSTIC_MESSAGE_HEADER]: cause.message.replace(/\s+/g, " ").slice(0, 1000),
    [DIAGNOSTIC_CHANNEL_HEADER]: channel,
  };
}
