/**
 * The `kafka` transport (on `npm:kafkajs`). Each channel declared
 * `transport: kafka` gets a consumer in its own consumer group
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its
 * lease. Outbound, the `kafka://` sink publishes with acks=all on the
 * idempotent producer (`sink.ts`). See docs/transports.md.
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
import { ChannelConsumer } from "./consumer.ts";
import { readKafkaOptions } from "./options.ts";
import { kafkaSink } from "./sink.ts";

/** How often the transport looks for channels deploys added or removed, milliseconds. */
const RECONCILE_MS = 1_000;

/** Consumers for the channels currently served, and the sink. */
class KafkaTransport implements TransportInstance {
  readonly #consumers: ChannelConsumers;
  readonly #sink: ReturnType<typeof kafkaSink>;
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext) {
    this.#sink = kafkaSink(context);
    this.sinks = [this.#sink];
    this.#consumers = new ChannelConsumers({
      context,
      transport: "kafka",
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
  const { options, problems } = readKafkaOptions(channel);
  if (problems.length > 0) {
    reportOnce(() => {
      for (const p of problems) context.logger.error(p.message, { code: p.code, ...p.attributes });
    });
    return undefined;
  }
  // An outbound-only channel: its topic is written to, never read back into the engine.
  if (!options.consume) return undefined;
  return startConsumer({
    context,
    channel,
    transport: "kafka",
    leaseTtlMs: options.leaseTtlMs,
    consumer: new ChannelConsumer({ context, channel, options, logger: context.logger }),
  });
}

/** The kafka transport factory. */
export const kafkaTransport: TransportFactory = {
  name: "kafka",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new KafkaTransport(context),
  // The sink needs the running engine's channels and secrets, so it comes with each spawned instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
