/**
 * The `sqs` transport (Amazon SQS on `npm:@aws-sdk/client-sqs`). Each
 * channel declared `transport: sqs` gets a consumer on its queue
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its lease.
 * Outbound, the `sqs://` sink sends through the outbox (`sink.ts`). See
 * docs/transports.md.
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
import { readSqsOptions } from "./options.ts";
import { sqsSink } from "./sink.ts";

/** How often the transport looks for channels deploys added or removed, milliseconds. */
const RECONCILE_MS = 1_000;

/** Consumers for the channels currently served, and the sink. */
class SqsTransport implements TransportInstance {
  readonly #consumers: ChannelConsumers;
  readonly #sink: ReturnType<typeof sqsSink>;
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext) {
    this.#sink = sqsSink(context);
    this.sinks = [this.#sink];
    this.#consumers = new ChannelConsumers({
      context,
      transport: "sqs",
      intervalMs: RECONCILE_MS,
      open: (channel, reportOnce) => openConsumer(context, channel, reportOnce),
    });
  }

  async stop(): Promise<void> {
    await this.#consumers.stop();
    this.#sink.close();
  }
}

/** A consumer for `channel`, or undefined (reported once) when its options are wrong. */
function openConsumer(
  context: TransportContext,
  channel: BoundChannel,
  reportOnce: ReportOnce,
): RunningConsumer | undefined {
  const { options, problems } = readSqsOptions(channel);
  if (problems.length > 0) {
    reportOnce(() => {
      for (const p of problems) context.logger.error(p.message, { code: p.code, ...p.attributes });
    });
    return undefined;
  }
  return startConsumer({
    context,
    channel,
    transport: "sqs",
    leaseTtlMs: options.leaseTtlMs,
    consumer: new ChannelConsumer({ context, channel, options, logger: context.logger }),
  });
}

/** The sqs transport factory. */
export const sqsTransport: TransportFactory = {
  name: "sqs",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new SqsTransport(context),
  // The sink needs the running engine's channels and secrets, so it comes with each spawned instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
