/**
 * The `amqp10` transport factory (AMQP 1.0 through `rhea`). A running
 * instance follows the engine's deploys: every second it compares the
 * active `amqp10` channels with the consumers it runs, starting one per
 * channel that has an `address` and is not `consume: false` (a
 * `singleton: true` channel only while
 * this replica holds its lease) and stopping the ones whose channel went
 * away. Its sink sends `amqp10:` destinations over the channels'
 * connections.
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
import { DiagnosticError } from "../../../engine/core/diagnostic.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import {
  ChannelConsumers,
  channelIdentity,
  type ReportOnce,
  type RunningConsumer,
  startConsumer,
} from "../_broker/mod.ts";
import { ChannelConsumer } from "./_consumer.ts";
import { readOptions } from "./_options.ts";
import { amqp10Sink, ConnectionPool } from "./_sink.ts";

/** How often the running instance looks for channels that came or went, milliseconds. */
const RECONCILE_MS = 1_000;

class Amqp10Instance implements TransportInstance {
  readonly #consumers: ChannelConsumers;
  readonly #pool = new ConnectionPool();
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext) {
    this.sinks = [amqp10Sink(context, this.#pool, context.logger)];
    this.#consumers = new ChannelConsumers({
      context,
      transport: "amqp10",
      intervalMs: RECONCILE_MS,
      // A redeploy restarts the consumer even when the channel is unchanged.
      identity: (channel) => JSON.stringify([channel.deploymentId, channelIdentity(channel)]),
      open: (channel, reportOnce) => openConsumer(context, channel, reportOnce),
    });
  }

  async stop(): Promise<void> {
    await this.#consumers.stop();
    await this.#pool.close();
  }
}

/**
 * A consumer for a channel with an `address`; undefined for a send-only
 * channel (no `address`, or `consume: false`), or (reported once) when its
 * options or url are wrong.
 */
async function openConsumer(
  context: TransportContext,
  channel: BoundChannel,
  reportOnce: ReportOnce,
): Promise<RunningConsumer | undefined> {
  if (channel.declaration.options?.["address"] === undefined) return undefined;
  const name = channel.declaration.name;
  const logger = context.logger;
  const read = readOptions(channel);
  if ("problems" in read) {
    reportOnce(() => {
      for (const problem of read.problems) {
        logger.error(problem.message, { code: problem.code, channel: name });
      }
    });
    return undefined;
  }
  if (!read.options.consume) return undefined;
  let url: string;
  try {
    url = await context.resolveSecret(read.options.url);
  } catch (error) {
    reportOnce(() =>
      logger.error(`channel '${name}': its url cannot be resolved; not consumed`, {
        code: error instanceof DiagnosticError ? error.diagnostics[0].code : undefined,
        channel: name,
        error: errorMessage(error),
      })
    );
    return undefined;
  }
  return startConsumer({
    context,
    channel,
    transport: "amqp10",
    leaseTtlMs: read.options.leaseTtlMs,
    consumer: new ChannelConsumer({
      context,
      channel,
      options: { ...read.options, address: read.options.address! },
      url,
      logger,
    }),
  });
}

/** The AMQP 1.0 transport. */
export const amqp10Transport: TransportFactory = {
  name: "amqp10",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new Amqp10Instance(context),
  // Lint and deploy see the problems a consumer would refuse the channel with.
  checkOptions: (declaration) => {
    const read = readOptions({
      tenant: "default",
      deploymentId: "",
      declaration,
      ackMode: "on-persist",
    });
    return "problems" in read ? read.problems : [];
  },
  // The sink sends over the running engine's channels' connections, so it comes with each instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
