/**
 * Handing one broker message to the engine and hearing its verdict, the
 * same on every broker: the transport builds the engine's view of the
 * message ({@link unwrapStructured} unwraps a structured CloudEvent), and
 * {@link deliverForVerdict} delivers it and, on an `on-complete` channel,
 * waits for the instance to settle it, unless the consumer stops first.
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type {
  AckVerdict,
  BoundChannel,
  InboundDelivery,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { isStructuredCloudEvent, unwrapCloudEvent } from "./cloudevents.ts";
import { type BrokerVerdict, verdictOf, verdictOfAck } from "./verdict.ts";
import { retryAfterSeconds } from "../../../engine/runtime/tenancy/quotas.ts";

/**
 * The verdict of a message whose on-complete hold the consumer dropped by
 * stopping: it is neither acknowledged nor refused, so the broker gives it
 * out again.
 */
export const ABANDON: unique symbol = Symbol("abandon");

/** Options for {@link deliverForVerdict}. */
export interface DeliverForVerdictOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  /** Aborted when the consumer stops. */
  readonly signal: AbortSignal;
  /**
   * The engine's view of the message, given the deferral of an
   * `on-complete` channel (undefined on `on-persist`), or the diagnostic
   * that refuses it for good.
   */
  delivery(deferral: InboundDelivery["deferral"]): InboundDelivery | Diagnostic;
}

/**
 * Delivers a message and says what becomes of it: a refused view is
 * dead-lettered; on `on-persist` the delivery's outcome decides (a requeue
 * whose diagnostic names a wait is held for it first); on
 * `on-complete` a settled delivery waits for the instance's ack verdict,
 * or is {@link ABANDON}ed when `signal` aborts first (stopping drops the
 * engine's holds unsettled).
 */
export async function deliverForVerdict(
  o: DeliverForVerdictOptions,
): Promise<BrokerVerdict | typeof ABANDON> {
  let heard: (v: AckVerdict) => void = () => {};
  // Only an on-complete channel waits for a verdict; on-persist builds no promise for it.
  const deferred = o.channel.ackMode === "on-complete"
    ? new Promise<AckVerdict>((resolve) => heard = resolve)
    : undefined;
  const delivery = o.delivery(deferred ? { settle: (v) => heard(v) } : undefined);
  if ("code" in delivery) return { action: "dead-letter", diagnostic: delivery };
  const outcome = await o.context.deliver(delivery);
  if (outcome.kind === "settled" && deferred) {
    const heardOrStopped = await Promise.race([deferred, aborted(o.signal)]);
    return heardOrStopped === ABANDON ? ABANDON : verdictOfAck(heardOrStopped);
  }
  const verdict = verdictOf(outcome);
  // A refusal that names its wait (a tenant quota) is held that long before it goes back, so
  // the broker does not offer it again at once and spend its redelivery budget in a burst.
  const wait = verdict.action === "requeue" ? retryAfterSeconds(verdict.diagnostic) : undefined;
  if (wait !== undefined && await held(wait * 1000, o.signal)) return ABANDON;
  return verdict;
}

/** Waits `ms`, or until `signal` aborts: true when it aborted. */
function held(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const stop = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve(false);
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/**
 * `delivery` as the engine sees it: unchanged, unless the channel is in
 * structured CloudEvents mode or the content type announces a structured
 * CloudEvent; then the event is unwrapped (keeping the delivery's deferral
 * and reply address), or the diagnostic that refuses it is returned.
 */
export function unwrapStructured(
  delivery: InboundDelivery,
  channel: BoundChannel,
): InboundDelivery | Diagnostic {
  const structured = channel.declaration.cloudeventsMode === "structured" ||
    isStructuredCloudEvent(delivery.contentType);
  if (!structured) return delivery;
  const unwrapped = unwrapCloudEvent(delivery);
  if ("code" in unwrapped) return unwrapped;
  return {
    ...delivery,
    ...unwrapped,
    ...(delivery.deferral ? { deferral: delivery.deferral } : {}),
    ...(delivery.replyTo ? { replyTo: delivery.replyTo } : {}),
  };
}

/** Resolves with {@link ABANDON} once `signal` aborts. */
function aborted(signal: AbortSignal): Promise<typeof ABANDON> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABANDON);
    else signal.addEventListener("abort", () => resolve(ABANDON), { once: true });
  });
}
