/**
 * The `amqp10` transport factory (AMQP 1.0 through `rhea`). A running
 * instance follows the engine's deploys: every second it compares the
 * active `amqp10` channels with the consumers it runs, starting one per
 * channel that has an `address` (a `singleton: true` channel only while
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
import { singletonGate } from "../_broker/mod.ts";
import { ChannelConsumer } from "./_consumer.ts";
import { readOptions } from "./_options.ts";
import { amqp10Sink, ConnectionPool } from "./_sink.ts";

/** How often the running instance looks for channels that came or went, milliseconds. */
const RECONCILE_MS = 1_000;

interface Running {
  stop(): Promise<void>;
}

/** What identifies one consumer: a redeploy that changes the channel restarts it. */
function keyOf(channel: BoundChannel): string {
  const d = channel.declaration;
  return JSON.stringify([
    channel.tenant,
    d.name,
    channel.deploymentId,
    channel.ackMode,
    d.cloudeventsMode,
    d.singleton,
    d.options,
  ]);
}

class Amqp10Instance implements TransportInstance {
  readonly #context: TransportContext;
  readonly #running = new Map<string, Running>();
  // Problems already logged, so a broken channel is reported once, not every second.
  readonly #reported = new Set<string>();
  readonly #pool = new ConnectionPool();
  readonly sinks: readonly Sink[];
  #timer: ReturnType<typeof setInterval> | undefined;
  #pass: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(context: TransportContext) {
    this.#context = context;
    this.sinks = [amqp10Sink(context, this.#pool, context.logger)];
    this.#pass = this.#reconcileGuarded();
    this.#timer = setInterval(() => {
      this.#pass = this.#pass.then(() => this.#reconcileGuarded());
    }, RECONCILE_MS);
  }

  /** One pass; a failure is logged and the next pass tries again. */
  async #reconcileGuarded(): Promise<void> {
    try {
      await this.#reconcile();
    } catch (error) {
      this.#context.logger.error("amqp10: could not follow the active channels", {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        error: errorMessage(error),
      });
    }
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    const wanted = new Map<string, BoundChannel>();
    for (const channel of this.#context.channels()) {
      if (channel.declaration.options?.["address"] !== undefined) {
        wanted.set(keyOf(channel), channel);
      }
    }
    for (const [key, running] of this.#running) {
      if (wanted.has(key)) continue;
      this.#running.delete(key);
      await running.stop();
    }
    for (const [key, channel] of wanted) {
      if (this.#running.has(key) || this.#stopped) continue;
      const started = await this.#start(key, channel);
      if (started) this.#running.set(key, started);
    }
  }

  async #start(key: string, channel: BoundChannel): Promise<Running | undefined> {
    const name = channel.declaration.name;
    const logger = this.#context.logger;
    const read = readOptions(channel);
    if ("problems" in read) {
      this.#reportOnce(key, () => {
        for (const problem of read.problems) {
          logger.error(problem.message, { code: problem.code, channel: name });
        }
      });
      return undefined;
    }
    let url: string;
    try {
      url = await this.#context.resolveSecret(read.options.url);
    } catch (error) {
      this.#reportOnce(
        key,
        () =>
          logger.error(`channel '${name}': its url cannot be resolved; not consumed`, {
            code: error instanceof DiagnosticError ? error.diagnostics[0].code : undefined,
            channel: name,
            error: errorMessage(error),
          }),
      );
      return undefined;
    }
    const consumer = new ChannelConsumer({
      context: this.#context,
      channel,
      options: { ...read.options, address: read.options.address! },
      url,
      logger,
    });
    if (!channel.declaration.singleton) {
      consumer.start();
      return consumer;
    }
    const gate = singletonGate({
      context: this.#context,
      role: `transport/amqp10/${channel.tenant}/${name}`,
      ttlMs: read.options.leaseTtlMs,
      logger,
      start: () => consumer.start(),
      stop: () => consumer.stop(),
    });
    return { stop: () => gate.close() };
  }

  #reportOnce(key: string, report: () => void): void {
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    report();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#pass;
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map((r) => r.stop()));
    await this.#pool.close();
  }
}

/** The AMQP 1.0 transport. */
export const amqp10Transport: TransportFactory = {
  name: "amqp10",
  handlesOnComplete: true,
  defaultAckMode: "on-persist",
  spawn: (context) => new Amqp10Instance(context),
  // The sink sends over the running engine's channels' connections, so it comes with each instance.
  registerSinks(_sinks: Registry<Sink>) {},
};
