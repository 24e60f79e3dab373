/**
 * The `local` transport: co-deployed processes hand messages to each
 * other in-process. A channel bound `local://<address>` has no listener;
 * an emission whose destination is that address is handed by this
 * engine's outbox straight to its own intake, as if it had arrived on the
 * channel, under the emission's idempotency key (so a re-sent delivery is
 * absorbed by inbox dedup).
 *
 * The receiving channel's `ack-mode` decides when the sender's outbox row
 * is settled: `on-persist` once the message is captured, `on-complete`
 * (the default) once every instance it started or advanced has ended —
 * the engine's deferred-ack registry holds the acknowledgement meanwhile.
 * A receiving instance that fails refuses the hand-off for good (the row
 * is poisoned with `SUTRA.ACK.DEFERRED_NACKED`); one that outlives the
 * registry's timeout has the row handed over again, and inbox dedup
 * answers that copy from the instance's state, without spending an attempt.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type {
  AckVerdict,
  BoundChannel,
  DeliveryOutcome,
  OutboundMessage,
  RefusalClass,
  RemoteSink,
  Sink,
  SinkResult,
  SinkSettlement,
  TransportContext,
  TransportFactory,
} from "../../../engine/core/transport.ts";

/** The destination scheme. */
export const LOCAL_SCHEME = "local";

// Refusals a later attempt can get past: a lost race, a full lane, a failed
// run. A channel no active deployment serves may be activated later too.
const TRANSIENT: ReadonlySet<RefusalClass> = new Set(["retry", "overloaded", "failed"]);
const CHANNEL_UNKNOWN = "SUTRA.RESOLVE.CHANNEL.UNKNOWN";

/** The address a local channel answers to: its bind, else `local://<name>`. */
export function localAddress(channel: BoundChannel): string {
  return channel.declaration.bind?.trim() || `${LOCAL_SCHEME}://${channel.declaration.name}`;
}

/** What an intake outcome means for the delivery that caused it. */
export function sinkResultOf(destination: string, outcome: DeliveryOutcome): SinkSettlement {
  if (outcome.kind !== "refused") return { outcome: "delivered" };
  const first = outcome.diagnostics[0];
  const error = `${first?.code ?? "refused"}: ${
    first?.message ?? outcome.refusal
  } (${destination})`;
  const transient = TRANSIENT.has(outcome.refusal) || first?.code === CHANNEL_UNKNOWN;
  return transient ? { outcome: "retry", error } : { outcome: "poison", error };
}

/** The sink of one running engine: it delivers to that engine's local channels. */
export function localSink(context: TransportContext): RemoteSink {
  return {
    name: LOCAL_SCHEME,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const destination = message.destination.trim();
      const channel = context.channels().find((c) => localAddress(c) === destination);
      if (!channel) {
        // The receiving deployment may be activated later; the outbox backs off meanwhile.
        return {
          outcome: "retry",
          error: `${CHANNEL_UNKNOWN}: no active local channel is bound to ${destination}`,
        };
      }
      let verdict: AckVerdict | undefined;
      let heard: (verdict: AckVerdict) => void = (v) => verdict = v;
      const outcome = await context.deliver({
        channel: channel.declaration.name,
        body: message.body,
        headers: message.headers,
        idempotencyKey: message.idempotencyKey,
        ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
        deferral: { settle: (v) => heard(v) },
      });
      // Settled only for a settled outcome on an on-complete channel; often at once.
      if (outcome.kind !== "settled" || channel.ackMode !== "on-complete") {
        return sinkResultOf(destination, outcome);
      }
      if (verdict) return settlementOf(destination, verdict);
      const settled = new Promise<AckVerdict>((resolve) => heard = resolve);
      return {
        outcome: "deferred",
        settled: settled.then((v) => settlementOf(destination, v)),
        holdMs: context.ackHoldMs,
      };
    },
  };
}

/** What the receiving instances' end means for the sender's row. */
export function settlementOf(destination: string, verdict: AckVerdict): SinkSettlement {
  if (verdict.kind === "ack") return { outcome: "delivered" };
  const error = `${verdict.diagnostic.code}: ${verdict.diagnostic.message} (${destination})`;
  return verdict.permanent
    ? { outcome: "poison", error }
    : { outcome: "retry", error, uncounted: true };
}

/** The local transport factory. */
export const localTransport: TransportFactory = {
  name: "local",
  handlesOnComplete: true,
  defaultAckMode: "on-complete",
  spawn: (context) => ({ stop: () => Promise.resolve(), sinks: [localSink(context)] }),
  // The sink needs the running engine's intake, so it comes with each spawned instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
