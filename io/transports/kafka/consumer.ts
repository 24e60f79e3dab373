/**
 * One consumer per kafka channel, in the channel's own consumer group: it
 * keeps a group membership (joining again with backoff when the session
 * crashes), hands each record to the engine and settles it with the shared
 * broker verdicts. Kafka has no per-record acknowledgement, so:
 *
 * - "ack" marks the offset finished, and the partition's contiguous
 *   watermark ({@link PartitionOffsets}) is committed — after the step's
 *   commit (on-persist) or once the instances ended (on-complete), never
 *   past an earlier record still running;
 * - "requeue" retries the record in process after a backoff, within the
 *   channel's redelivery budget (counted per topic/partition/offset), and
 *   holds the records of its key behind it;
 * - "dead-letter" publishes a copy to the dead-letter topic (acks=all) with
 *   the diagnostic headers plus where it came from, then marks it finished.
 *
 * A record with a `reply-to` header (a topic) has the step's `q:reply`
 * published there, keyed like the request, with its `correlation-id`.
 *
 * Records of one key reach the engine in offset order, one at a time
 * ({@link KeyedSequencer}); other keys of the partition run meanwhile, up
 * to `max-in-flight`. A rebalance first commits what is finished (the old
 * generation may still commit while the group prepares), then fences the
 * old generation's offsets: work not started is abandoned, work under way
 * finishes but commits nothing, and the new owner starts at the last
 * commit — the inbox dedup on topic/partition/offset (or the idempotency
 * header) answers what it sees again without running it twice.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "../../../engine/core/diagnostic.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import type { Logger } from "../../../engine/core/log.ts";
import type {
  BoundChannel,
  InboundDelivery,
  TransportContext,
} from "../../../engine/core/transport.ts";
import {
  ABANDON,
  Backoff,
  type BrokerVerdict,
  ConsumerLoop,
  deadLetterHeaders,
  deliverForVerdict,
  RedeliveryBudget,
  sleep,
  unwrapStructured,
} from "../_broker/mod.ts";
import {
  type Consumer,
  type EachBatchPayload,
  kafkaClient,
  type KafkaMessage,
  KEY_HEADER,
  recordHeaders,
} from "./_kafka.ts";
import { PartitionOffsets } from "./offsets.ts";
import { connectionOf, type KafkaChannelOptions } from "./options.ts";
import { KeyedSequencer } from "./ordering.ts";
import { KafkaPublisher } from "./publisher.ts";

/** Headers a dead-lettered copy carries about where it came from. */
export const SOURCE_HEADERS = {
  topic: "sutra-source-topic",
  partition: "sutra-source-partition",
  offset: "sutra-source-offset",
} as const;

/** What a consumer needs. */
export interface ConsumerOptions {
  readonly context: TransportContext;
  readonly channel: BoundChannel;
  readonly options: KafkaChannelOptions;
  readonly logger: Logger;
}

/** A record as kafkajs hands it over, with where it was read. */
interface Received {
  readonly topic: string;
  readonly partition: number;
  readonly message: KafkaMessage;
}

/** A running channel consumer. */
export class ChannelConsumer {
  readonly #o: ConsumerOptions;
  readonly #budget: RedeliveryBudget;
  readonly #sequencer = new KeyedSequencer();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #deadLetters: KafkaPublisher;
  readonly #life: ConsumerLoop;
  /** The current generation's partitions; replaced (fencing the old ones) on every assignment. */
  #partitions = new Map<number, PartitionOffsets>();
  #consumer: Consumer | undefined;
  #endSession: (() => void) | undefined;
  #committing: Promise<void> | undefined;
  #commitAgain = false;

  constructor(options: ConsumerOptions) {
    this.#o = options;
    this.#budget = new RedeliveryBudget({ maxDeliveries: options.options.maxDeliveries });
    this.#life = new ConsumerLoop({
      logger: options.logger,
      what: `kafka channel '${options.channel.declaration.name}'`,
      session: (connected) => this.#session(connected),
      drain: () => this.#drain(),
      closed: () => this.#deadLetters.close(),
    });
    this.#deadLetters = new KafkaPublisher({
      connection: () => connectionOf(options.context, options.options),
      clientId: `sutra-${options.channel.declaration.name}-dlt`,
      logger: options.logger,
    });
  }

  get #name(): string {
    return this.#o.channel.declaration.name;
  }

  /** Starts consuming (again), joining the group again whenever the session ends. */
  start(): void {
    this.#life.start();
  }

  /** Stops: records under way finish (on-complete holds are abandoned), their offsets are committed, the member leaves. */
  stop(): Promise<void> {
    return this.#life.stop();
  }

  async #drain(): Promise<void> {
    for (const p of this.#partitions.values()) p.release();
    await Promise.allSettled([...this.#inFlight]);
    await this.#flushCommits();
    this.#endSession?.();
  }

  /** One group membership: connect, subscribe, run until the consumer crashes or the channel stops. */
  async #session(connected: () => void): Promise<void> {
    const o = this.#o.options;
    const kafka = kafkaClient({
      connection: await connectionOf(this.#o.context, o),
      clientId: `sutra-${this.#name}`,
      logger: this.#o.logger,
    });
    const consumer = kafka.consumer({
      groupId: o.groupId,
      sessionTimeout: o.sessionTimeoutMs,
      rebalanceTimeout: Math.max(o.sessionTimeoutMs, 10_000),
      heartbeatInterval: o.heartbeatIntervalMs,
      maxWaitTimeInMs: o.maxWaitMs,
      allowAutoTopicCreation: true,
      // A crash ends this session; the reconnect loop (with its backoff) starts the next.
      retry: { retries: 2, restartOnFailure: () => Promise.resolve(false) },
    });
    let ended!: () => void;
    const over = new Promise<void>((resolve) => ended = resolve);
    consumer.on(consumer.events.CRASH, (event) => {
      this.#o.logger.warn("the kafka consumer stopped", {
        channel: this.#name,
        code: "SUTRA.BROKER.CONNECTION_LOST",
        error: errorMessage(event.payload.error),
      });
      ended();
    });
    // A rebalance begins: commit what is finished while the old generation still may.
    consumer.on(consumer.events.REBALANCING, () => this.#scheduleCommit());
    consumer.on(consumer.events.GROUP_JOIN, (event) => this.#assigned(event.payload));
    try {
      await consumer.connect().catch((error) => {
        throw loginRefused(error, o) ?? error;
      });
      await consumer.subscribe({ topic: o.topic, fromBeginning: o.fromBeginning });
      if (this.#life.signal.aborted) return;
      this.#consumer = consumer;
      this.#endSession = ended;
      await consumer.run({
        autoCommit: false,
        // Every assigned partition is fetched and fed at once; keys within one are sequenced here.
        partitionsConsumedConcurrently: 64,
        // A fetched batch is walked here, without kafkajs' per-record awaits; only what was begun is resolved.
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.#acceptBatch(payload),
      });
      connected();
      this.#o.logger.info("consuming", { channel: this.#name, topic: o.topic, group: o.groupId });
      if (this.#life.signal.aborted) ended();
      await over;
    } finally {
      this.#consumer = undefined;
      this.#endSession = undefined;
      // The generation ends with the session: what is still under way commits nothing.
      this.#fence();
      await consumer.disconnect().catch(() => {});
    }
  }

  /** A new generation: the previous partitions are fenced; the new ones start at the group's commits. */
  #assigned(payload: { memberAssignment: Record<string, number[]> }): void {
    this.#fence();
    this.#o.logger.info("partitions assigned", {
      channel: this.#name,
      partitions: (payload.memberAssignment[this.#o.options.topic] ?? []).join(","),
    });
  }

  #fence(): void {
    for (const p of this.#partitions.values()) p.release();
    this.#partitions = new Map();
  }

  /**
   * kafkajs' per-batch callback: queues each record behind its key and moves
   * on, waiting only while the partition has `max-in-flight` records under
   * way (backpressure); the read position advances past the records begun.
   */
  async #acceptBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, heartbeat } = payload;
    const { topic, partition } = batch;
    let offsets = this.#partitions.get(partition);
    if (!offsets) {
      this.#partitions.set(partition, offsets = new PartitionOffsets(this.#o.options.maxInFlight));
    }
    let begun: string | undefined;
    try {
      for (const message of batch.messages) {
        if (!payload.isRunning() || payload.isStale()) return;
        while (offsets.inFlight >= offsets.maxInFlight && !this.#life.signal.aborted) {
          // No heartbeat from kafkajs while this batch waits: keep the membership alive meanwhile.
          if (!await offsets.room(this.#o.options.heartbeatIntervalMs)) await heartbeat();
          if (this.#partitions.get(partition) !== offsets) return;
        }
        // Not begun, so not committed: a stopping consumer leaves it for the next owner.
        if (this.#life.signal.aborted) return;
        this.#begin({ topic, partition, message }, offsets);
        begun = message.offset;
      }
    } finally {
      if (begun !== undefined) payload.resolveOffset(begun);
    }
  }

  /** Hands one record to its key's sequence. */
  #begin(received: Received, offsets: PartitionOffsets): void {
    offsets.begin(BigInt(received.message.offset));
    const work = this.#sequencer.run(
      this.#orderingKey(received.partition, received.message),
      () => this.#process(received, offsets),
    );
    this.#inFlight.add(work);
    const done = () => this.#inFlight.delete(work);
    work.then(done, done);
  }

  /** What a record waits behind: its key's earlier records, or its partition's with `ordering: partition`. */
  #orderingKey(partition: number, message: KafkaMessage): string {
    if (this.#o.options.ordering === "partition") return `${partition}`;
    // A record without a key keeps no order with the others.
    if (message.key === null) return `${partition}@${message.offset}`;
    // latin1 maps each byte to one character: distinct keys stay distinct, at no decoding cost.
    return `${partition}:${message.key.toString("latin1")}`;
  }

  /** One record to its end: delivered, retried, dead-lettered or abandoned. Never rejects. */
  async #process(received: Received, offsets: PartitionOffsets): Promise<void> {
    // Queued behind its key when the generation or the consumer ended: left to the next owner.
    if (this.#life.signal.aborted || this.#partitions.get(received.partition) !== offsets) return;
    try {
      if (await this.#settle(received) === ABANDON) return;
      offsets.finish(BigInt(received.message.offset));
      if (this.#partitions.get(received.partition) === offsets) this.#scheduleCommit();
    } catch (error) {
      this.#o.logger.warn(
        "a record could not be settled; the next owner of its partition reads it again",
        {
          channel: this.#name,
          partition: received.partition,
          offset: received.message.offset,
          error: errorMessage(error),
        },
      );
    }
  }

  async #settle(received: Received): Promise<typeof ABANDON | void> {
    const id = `${received.topic}/${received.partition}/${received.message.offset}`;
    let backoff: Backoff | undefined;
    for (;;) {
      let verdict = await this.#verdict(received);
      if (verdict === ABANDON) return ABANDON;
      if (verdict.action === "requeue") {
        const n = this.#budget.count({ messageId: id });
        if (!this.#budget.spent(n)) {
          this.#o.logger.info("retrying", {
            channel: this.#name,
            code: verdict.diagnostic.code,
            delivery: n,
            record: id,
          });
          backoff ??= new Backoff({ initialMs: 200, maxMs: 5_000 });
          await sleep(backoff.next(), this.#life.signal);
          if (this.#life.signal.aborted) return ABANDON;
          continue;
        }
        verdict = {
          action: "dead-letter",
          diagnostic: this.#budget.exhausted(n, verdict.diagnostic),
        };
      }
      if (
        verdict.action === "dead-letter" &&
        await this.#deadLetter(received, verdict.diagnostic) === ABANDON
      ) {
        return ABANDON;
      }
      this.#budget.forget(id);
      return;
    }
  }

  #verdict(received: Received): Promise<BrokerVerdict | typeof ABANDON> {
    return deliverForVerdict({
      context: this.#o.context,
      channel: this.#o.channel,
      signal: this.#life.signal,
      delivery: (deferral) => this.#delivery(received, deferral),
    });
  }

  /** The engine's view of a record; a structured CloudEvent is unwrapped (or refused). */
  #delivery(
    { topic, partition, message }: Received,
    deferral: InboundDelivery["deferral"],
  ): InboundDelivery | Diagnostic {
    const headers = recordHeaders(message.headers);
    headers["kafka-topic"] = topic;
    headers["kafka-partition"] = String(partition);
    headers["kafka-offset"] = message.offset;
    headers["kafka-timestamp"] = message.timestamp;
    if (message.key !== null) headers[KEY_HEADER] = message.key.toString("utf8");
    const header = this.#o.options.idempotencyHeader;
    const key = (header && headers[header]) || `kafka:${topic}/${partition}/${message.offset}`;
    const contentType = headers["content-type"];
    const replyTo = headers["reply-to"];
    const delivery: InboundDelivery = {
      channel: this.#name,
      body: message.value ? new Uint8Array(message.value) : new Uint8Array(),
      headers,
      ...(contentType === undefined ? {} : { contentType }),
      idempotencyKey: key,
      ...(message.key === null ? {} : { orderingKey: `${topic}/${headers[KEY_HEADER]}` }),
      ...(deferral ? { deferral } : {}),
      ...(replyTo ? { replyTo: replyRoute(replyTo, this.#name, headers) } : {}),
    };
    const view = unwrapStructured(delivery, this.#o.channel);
    // The record's own key stays its idempotency key, whatever the event says.
    return "code" in view || view === delivery ? view : { ...view, idempotencyKey: key };
  }

  /** Copies the record to the dead-letter topic (acks=all), retrying until it is accepted or the consumer stops. */
  async #deadLetter(
    { topic, partition, message }: Received,
    cause: Diagnostic,
  ): Promise<typeof ABANDON | void> {
    const o = this.#o.options;
    this.#o.logger.warn("dead-lettered", {
      channel: this.#name,
      code: cause.code,
      message: cause.message,
      deadLetterTopic: o.deadLetterTopic,
      record: `${topic}/${partition}/${message.offset}`,
    });
    const headers: Record<string, string | Uint8Array | (string | Uint8Array)[]> = {};
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      if (value !== undefined) headers[name] = value;
    }
    Object.assign(headers, deadLetterHeaders(cause, this.#name), {
      [SOURCE_HEADERS.topic]: topic,
      [SOURCE_HEADERS.partition]: String(partition),
      [SOURCE_HEADERS.offset]: message.offset,
    });
    const backoff = new Backoff({ initialMs: 200, maxMs: 5_000 });
    for (;;) {
      try {
        await this.#deadLetters.publish(o.deadLetterTopic, {
          key: message.key,
          value: message.value,
          headers,
        });
        return;
      } catch (error) {
        // Never dropped: the record stays unfinished (its partition's commits wait) until the copy is accepted.
        this.#o.logger.error("the dead-letter copy was not accepted; retrying", {
          code: "SUTRA.BROKER.PUBLISH_FAILED",
          channel: this.#name,
          deadLetterTopic: o.deadLetterTopic,
          error: errorMessage(error),
        });
        await sleep(backoff.next(), this.#life.signal);
        if (this.#life.signal.aborted) return ABANDON;
      }
    }
  }

  /** Commits the watermarks that moved; one commit at a time, the next one picks up what finished meanwhile. */
  #scheduleCommit(): void {
    if (this.#committing) {
      this.#commitAgain = true;
      return;
    }
    this.#committing = this.#commitLoop().finally(() => this.#committing = undefined);
  }

  async #commitLoop(): Promise<void> {
    do {
      this.#commitAgain = false;
      const consumer = this.#consumer;
      if (!consumer) return;
      const due = [...this.#partitions].flatMap(([partition, offsets]) => {
        const offset = offsets.due();
        return offset === undefined ? [] : [{ partition, offsets, offset }];
      });
      if (due.length === 0) return;
      try {
        await consumer.commitOffsets(
          due.map((d) => ({
            topic: this.#o.options.topic,
            partition: d.partition,
            offset: String(d.offset),
          })),
        );
        for (const d of due) d.offsets.committed(d.offset);
      } catch (error) {
        // A rebalance or a lost connection: the partition's next owner starts at the last commit.
        this.#o.logger.debug("offsets not committed", {
          channel: this.#name,
          error: errorMessage(error),
        });
        return;
      }
    } while (this.#commitAgain);
  }

  async #flushCommits(): Promise<void> {
    await this.#committing;
    this.#scheduleCommit();
    await this.#committing;
  }
}

/**
 * Where the answer to a record with a `reply-to` header (a topic) goes: that
 * topic on the channel's brokers, keyed like the request, carrying its
 * `correlation-id` (else the request's key).
 */
function replyRoute(
  topic: string,
  channel: string,
  headers: Readonly<Record<string, string>>,
): NonNullable<InboundDelivery["replyTo"]> {
  const correlationId = headers["correlation-id"] ?? headers[KEY_HEADER];
  return {
    destination: `kafka://${encodeURIComponent(topic)}?channel=${encodeURIComponent(channel)}`,
    headers: {
      ...(correlationId === undefined ? {} : { "correlation-id": correlationId }),
      ...(headers[KEY_HEADER] === undefined ? {} : { [KEY_HEADER]: headers[KEY_HEADER] }),
    },
  };
}

/**
 * A clearer error for a SASL login the brokers refused (a wrong username or
 * password, or a mechanism they do not enable); undefined for any other.
 */
function loginRefused(error: unknown, o: KafkaChannelOptions): Error | undefined {
  if (!(error instanceof Error) || error.name !== "KafkaJSSASLAuthenticationError") {
    return undefined;
  }
  const mechanism = o.sasl?.mechanism ?? "none";
  return new DiagnosticError(diagnostic(
    "SUTRA.BROKER.LOGIN_REFUSED",
    `the brokers refused the channel's SASL login (${mechanism}): ` +
      `${error.message}; check its sasl username and password`,
    { attributes: { mechanism } },
  ));
}
