/**
 * The `local` transport: co-deployed processes hand messages to each
 * other in-process. A channel bound `local://<address>` has no listener;
 * an emission whose destination is that address is handed by this
 * engine's outbox straight to its own intake, as if it had arrived on the
 * channel, under the emission's idempotency key (so a re-sent delivery is
 * absorbed by inbox dedup). The sink waits for the receiving step to
 * commit, so the outbox row is deleted only once the handoff is durable.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type {
  BoundChannel,
  DeliveryOutcome,
  OutboundMessage,
  RefusalClass,
  RemoteSink,
  Sink,
  SinkResult,
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
export function sinkResultOf(destination: string, outcome: DeliveryOutcome): SinkResult {
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
      const outcome = await context.deliver({
        channel: channel.declaration.name,
        body: message.body,
        headers: message.headers,
        idempotencyKey: message.idempotencyKey,
        ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
      });
      return sinkResultOf(destination, outcome);
    },
  };
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
