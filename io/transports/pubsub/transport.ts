/**
 * The `pubsub` transport (Google Cloud Pub/Sub on `npm:@google-cloud/pubsub`).
 * Each channel declared `transport: pubsub` gets a streaming-pull consumer
 * on its subscription (`consumer.ts`), started and stopped as deployments
 * come and go; a `singleton: true` channel consumes only on the replica
 * holding its lease. Outbound, the `pubsub://` sink publishes (`sink.ts`).
 * See docs/transports.md.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type {
  BoundChannel,
  Sink,
  TransportContext,
  TransportFactory,
  TransportInstance,
} from "../../../engine/core/transport.ts";
import {
  ChannelConsumers,
  type ReportOnce,
  type RunningConsumer,
  startConsumer,
} from "../_broker/mod.ts";
import { PubSubConsumer } from "./consumer.ts";
import { readPubSubOptions } from "./options.ts";
import { pubsubSink } from "./sink.ts";

/** How often the transport looks for channels deploys added or removed, milliseconds. */
const RECONCILE_MS = 1_000;

/** Consumers for the channels currently served, and the sink. */
class PubSubTransport implements TransportInstance {
  readonly #consumers: ChannelConsumers;
  readonly #sink: ReturnType<typeof pubsubSink>;
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext) {
    this.#sink = pubsubSink(context);
    this.sinks = [this.#sink];
    this.#consumers = new ChannelConsumers({
      context,
      transport: "pubsub",
      intervalMs: RECONCILE_MS,
      open: (channel, reportOnce) => openConsumer(context, channel, reportOnce),
    });
  }

  async stop(): Promise<void> {
    await this.#consumers.stop();
    await this.#sink.close();
  }
}

/** A consumer for `channel`, or undefined (reported once) when its options are wrong. */
function openConsumer(
  context: TransportContext,
  channel: BoundChannel,
  reportOnce: ReportOnce,
): RunningConsumer | undefined {
  const { options, problems } = readPubSubOptions(channel);
  if (problems.length > 0) {
    reportOnce(() => {
      for (const p of problems) context.logger.error(p.message, { code: p.code, ...p.attributes });
    });
    return undefined;
  }
  return startConsumer({
    context,
    channel,
    transport: "pubsub",
    leaseTtlMs: options.leaseTtlMs,
    consumer: new PubSubConsumer({ context, channel, options, logger: context.logger }),
  });
}

/** The pubsub transport factory. */
export const pubsubTransport: TransportFactory = {
  name: "pubsub",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new PubSubTransport(context),
  // The sink needs the running engine's channels and secrets, so it comes with each spawned instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
