/**
 * The factory every queue transport built on {@link ChannelConsumers}
 * shares: a running instance follows the engine's deploys with one consumer
 * per bound channel (behind the lease of a `singleton: true` channel), owns
 * the transport's sink, and on stop stops the consumers before closing the
 * sink. A transport supplies only what is its own: how to read a channel's
 * options, how to build its consumer and its sink.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
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
} from "./channel_consumers.ts";
import type { BrokerChannelOptions } from "./options.ts";

/** How often a running instance looks for channels deploys added or removed, milliseconds. */
const RECONCILE_MS = 1_000;

/** Options for {@link brokerTransport}; `O` is the transport's parsed channel options. */
export interface BrokerTransportOptions<O extends BrokerChannelOptions> {
  /** The transport's name (`transport:` in a channel declaration). */
  readonly name: string;
  /** A channel's `options:` block, with what is wrong in it. */
  readOptions(channel: BoundChannel): { options: O; problems: readonly Diagnostic[] };
  /** The consumer of one channel; started at once or behind its singleton lease. */
  consumer(
    args: { context: TransportContext; channel: BoundChannel; options: O },
  ): { start(): void; stop(): Promise<void> };
  /** The transport's outbound sink, closed after the consumers stopped. */
  sink(context: TransportContext): Sink & { close(): void | Promise<void> };
}

/**
 * A {@link TransportFactory} whose instances run one consumer per bound
 * channel. A channel whose options are wrong is logged once (each problem
 * with its code and attributes) and not consumed until a deploy changes it.
 */
export function brokerTransport<O extends BrokerChannelOptions>(
  o: BrokerTransportOptions<O>,
): TransportFactory {
  return {
    name: o.name,
    handlesOnComplete: true,
    defaultAckMode: "on-persist",
    spawn: (context) => new BrokerTransport(context, o),
    // Lint and deploy see the problems a consumer would refuse the channel with.
    checkOptions: (declaration) =>
      o.readOptions({ tenant: "default", deploymentId: "", declaration, ackMode: "on-persist" })
        .problems,
    // The sink needs the running engine's channels and secrets, so it comes with each spawned instance.
    registerSinks(_sinks: Registry<Sink>) {},
  };
}

/** Consumers for the channels currently served, and the sink. */
class BrokerTransport<O extends BrokerChannelOptions> implements TransportInstance {
  readonly #consumers: ChannelConsumers;
  readonly #sink: Sink & { close(): void | Promise<void> };
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext, o: BrokerTransportOptions<O>) {
    this.#sink = o.sink(context);
    this.sinks = [this.#sink];
    this.#consumers = new ChannelConsumers({
      context,
      transport: o.name,
      intervalMs: RECONCILE_MS,
      open: (channel, reportOnce) => openConsumer(context, o, channel, reportOnce),
    });
  }

  async stop(): Promise<void> {
    await this.#consumers.stop();
    await this.#sink.close();
  }
}

/** A consumer for `channel`, or undefined: send-only (`consume: false`), or (reported once) its options are wrong. */
function openConsumer<O extends BrokerChannelOptions>(
  context: TransportContext,
  o: BrokerTransportOptions<O>,
  channel: BoundChannel,
  reportOnce: ReportOnce,
): RunningConsumer | undefined {
  const { options, problems } = o.readOptions(channel);
  if (problems.length > 0) {
    reportOnce(() => {
      for (const p of problems) context.logger.error(p.message, { code: p.code, ...p.attributes });
    });
    return undefined;
  }
  if (!options.consume) return undefined;
  return startConsumer({
    context,
    channel,
    transport: o.name,
    leaseTtlMs: options.leaseTtlMs,
    consumer: o.consumer({ context, channel, options }),
  });
}
