/**
 * The `pull` transport: no listener and no dialing. Its one sink parks
 * outbound deliveries as external tasks; workers fetch them and complete
 * them over `/sutra/external-tasks/*`, and a completion enters the engine
 * on the same channel through the ordinary intake path. A completion
 * waits for the step to commit (so a refused one can be answered 422),
 * hence on-complete.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type { Sink, TransportFactory } from "../../../engine/core/transport.ts";
import { pullSink } from "./sink.ts";

/** The pull transport factory. */
export const pullTransport: TransportFactory = {
  name: "pull",
  handlesOnComplete: true,
  defaultAckMode: "on-complete",
  // Workers come to the engine's operate surface; there is nothing to listen on.
  spawn: () => ({ stop: () => Promise.resolve() }),
  registerSinks(sinks: Registry<Sink>) {
    if (!sinks.has(pullSink.name)) sinks.register(pullSink);
  },
};
