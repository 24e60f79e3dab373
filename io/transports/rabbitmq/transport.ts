/**
 * The `rabbitmq` transport (AMQP 0-9-1 on `npm:amqplib`). Each channel
 * declared `transport: rabbitmq` gets a consumer on its queue
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its lease.
 * Outbound, the `rabbitmq://` sink publishes with confirms (`sink.ts`).
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
import { type SingletonGate, singletonGate } from "../_broker/mod.ts";
import { ChannelConsumer } from "./consumer.ts";
import { readRabbitOptions } from "./options.ts";
import { rabbitSink } from "./sink.ts";

/** How often the transport looks for channels deploys added or removed, milliseconds. */
const RECONCILE_MS = 1_000;

interface Running {
  readonly stop: () => Promise<void>;
}

/** Consumers for the channels currently served, keyed by their declaration. */
class RabbitTransport implements TransportInstance {
  readonly #context: TransportContext;
  readonly #running = new Map<string, Running>();
  readonly #reported = new Set<string>();
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #sink: ReturnType<typeof rabbitSink>;
  #reconciling: Promise<void> = Promise.resolve();
  readonly sinks: readonly Sink[];

  constructor(context: TransportContext) {
    this.#context = context;
    this.#sink = rabbitSink(context);
    this.sinks = [this.#sink];
    this.#reconcile();
    this.#timer = setInterval(() => this.#reconcile(), RECONCILE_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#reconciling;
    await Promise.all([...this.#running.values()].map((r) => r.stop()));
    this.#running.clear();
    await this.#sink.close();
  }

  #reconcile(): void {
    this.#reconciling = this.#reconciling.then(() => this.#apply());
  }

  async #apply(): Promise<void> {
    const wanted = new Map<string, BoundChannel>();
    for (const channel of this.#context.channels()) wanted.set(keyOf(channel), channel);
    for (const [key, running] of this.#running) {
      if (!wanted.has(key)) {
        this.#running.delete(key);
        await running.stop();
      }
    }
    for (const [key, channel] of wanted) {
      if (!this.#running.has(key)) this.#start(key, channel);
    }
  }

  #start(key: string, channel: BoundChannel): void {
    const name = channel.declaration.name;
    const { options, problems } = readRabbitOptions(channel);
    if (problems.length > 0) {
      // Once per declaration, not once per reconcile pass.
      if (!this.#reported.has(key)) {
        this.#reported.add(key);
        for (const p of problems) {
          this.#context.logger.error(p.message, { code: p.code, ...p.attributes });
        }
      }
      return;
    }
    const consumer = new ChannelConsumer({
      context: this.#context,
      channel,
      options,
      logger: this.#context.logger,
    });
    if (!channel.declaration.singleton) {
      consumer.start();
      this.#running.set(key, { stop: () => consumer.stop() });
      return;
    }
    const gate: SingletonGate = singletonGate({
      context: this.#context,
      role: `transport/rabbitmq/${channel.tenant}/${name}`,
      ttlMs: options.leaseTtlMs,
      logger: this.#context.logger,
      start: () => consumer.start(),
      stop: () => consumer.stop(),
    });
    this.#running.set(key, { stop: () => gate.close() });
  }
}

/** A channel's identity for reconciling: a changed declaration restarts its consumer. */
function keyOf(channel: BoundChannel): string {
  const d = channel.declaration;
  return JSON.stringify([
    channel.tenant,
    d.name,
    channel.ackMode,
    d.singleton ?? false,
    d.cloudeventsMode ?? "",
    d.options ?? {},
  ]);
}

/** The rabbitmq transport factory. */
export const rabbitmqTransport: TransportFactory = {
  name: "rabbitmq",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new RabbitTransport(context),
  // The sink needs the running engine's channels and secrets, so it comes with each spawned instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
