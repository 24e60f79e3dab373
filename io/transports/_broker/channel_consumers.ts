/**
 * Following deploys: a queue transport runs one consumer per channel bound
 * to it, and the bound channels change as deployments come and go.
 * {@link ChannelConsumers} compares them with the running consumers every
 * few hundred milliseconds, stopping the consumers whose channel went away
 * (or changed) before starting one per new channel.
 *
 * @module
 */
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { singletonGate } from "./singleton.ts";

/** A consumer started for one channel. */
export interface RunningConsumer {
  /** Stops consuming; resolves once nothing is in flight any more. */
  stop(): Promise<void>;
}

/**
 * Runs `report` the first time it is called for a channel identity only, so
 * a channel that cannot be consumed is logged once, not on every pass.
 */
export type ReportOnce = (report: () => void) => void;

/** Options for {@link ChannelConsumers}. */
export interface ChannelConsumersOptions {
  readonly context: TransportContext;
  /** The transport's name, for the log line of a pass that failed. */
  readonly transport: string;
  /** The pause between two passes, milliseconds. */
  readonly intervalMs: number;
  /**
   * What identifies a consumer (compared with `Map` key equality): when a
   * channel's identity changes, its consumer is stopped and a new one
   * started. Default: {@link channelIdentity}.
   */
  identity?(channel: BoundChannel): unknown;
  /**
   * Starts consuming `channel`. `undefined` means it is not consumed now
   * (its options are wrong, it has nothing to consume, its queue cannot be
   * reached…): the next pass asks again.
   */
  open(
    channel: BoundChannel,
    reportOnce: ReportOnce,
  ): RunningConsumer | undefined | Promise<RunningConsumer | undefined>;
}

/**
 * A channel's identity by its declaration (tenant, name, ack mode,
 * singleton, CloudEvents mode, options), as JSON: redeploying the same
 * declaration keeps its consumer, changing any of them restarts it.
 */
export function channelIdentity(channel: BoundChannel): string {
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

/**
 * One consumer per bound channel, following deploys. The first pass runs at
 * once; passes never overlap (the next is scheduled when one ends), and a
 * pass that fails is logged (`SUTRA.RUNTIME.UNEXPECTED`) and retried by the
 * next one.
 */
export class ChannelConsumers {
  readonly #o: ChannelConsumersOptions;
  readonly #identity: (channel: BoundChannel) => unknown;
  readonly #running = new Map<unknown, RunningConsumer>();
  readonly #reported = new Set<unknown>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pass: Promise<void>;
  #stopped = false;

  constructor(options: ChannelConsumersOptions) {
    this.#o = options;
    this.#identity = options.identity ?? channelIdentity;
    this.#pass = this.#tick();
  }

  /** Stops the passes, waits for one under way, then stops every consumer. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#pass;
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map((r) => r.stop()));
  }

  async #tick(): Promise<void> {
    try {
      await this.#reconcile();
    } catch (error) {
      this.#o.context.logger.error(`${this.#o.transport}: could not follow the active channels`, {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        error: errorMessage(error),
      });
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.#tick();
    }, this.#o.intervalMs);
  }

  async #reconcile(): Promise<void> {
    const wanted = new Map<unknown, BoundChannel>();
    for (const channel of this.#o.context.channels()) wanted.set(this.#identity(channel), channel);
    for (const [key, running] of this.#running) {
      if (wanted.has(key)) continue;
      this.#running.delete(key);
      await running.stop();
    }
    for (const [key, channel] of wanted) {
      if (this.#running.has(key) || this.#stopped) continue;
      const started = await this.#o.open(channel, (report) => this.#reportOnce(key, report));
      if (started) this.#running.set(key, started);
    }
  }

  #reportOnce(key: unknown, report: () => void): void {
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    report();
  }
}

/** Options for {@link startConsumer}. */
export interface StartConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  /** The transport's name, part of a singleton channel's lease role. */
  readonly transport: string;
  /** A singleton channel's lease time-to-live, milliseconds. */
  readonly leaseTtlMs?: number;
  readonly consumer: { start(): void; stop(): Promise<void> };
}

/**
 * Starts `consumer` at once, or, for a `singleton: true` channel, only while
 * this replica holds the lease `transport/<transport>/<tenant>/<channel>`
 * (see {@link singletonGate}).
 */
export function startConsumer(o: StartConsumerOptions): RunningConsumer {
  const { channel, consumer } = o;
  if (!channel.declaration.singleton) {
    consumer.start();
    return { stop: () => consumer.stop() };
  }
  const gate = singletonGate({
    context: o.context,
    role: `transport/${o.transport}/${channel.tenant}/${channel.declaration.name}`,
    ttlMs: o.leaseTtlMs,
    logger: o.context.logger,
    start: () => consumer.start(),
    stop: () => consumer.stop(),
  });
  return { stop: () => gate.close() };
}
