/**
 * The test broker's in-memory log: topics of partitions, each an array of
 * records with consecutive offsets, plus the idempotent producer's
 * sequence check (a batch sent again after a lost answer is recognised and
 * answered with its first offset, not appended twice). Fetches that find
 * nothing new can wait for an append.
 *
 * @module
 */
import type { IncomingBatch, StoredRecord } from "./record_batch.ts";

/** OUT_OF_ORDER_SEQUENCE_NUMBER. */
export const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
/** INVALID_PRODUCER_EPOCH. */
export const INVALID_PRODUCER_EPOCH = 47;

/** Batches per producer and partition remembered for duplicate detection (Kafka keeps five). */
const REMEMBERED_BATCHES = 5;

interface ProducerState {
  epoch: number;
  /** The sequence the next batch must start at. */
  nextSequence: number;
  /** Recent batches: first sequence → first offset. */
  readonly recent: Map<number, bigint>;
}

/** One partition's records. */
export class Partition {
  readonly records: StoredRecord[] = [];
  readonly #producers = new Map<bigint, ProducerState>();
  /**
   * When a fetch first took records from this partition (`performance.now()`):
   * for a benchmark in the broker's own process, where a client's question
   * would queue behind the work being measured.
   */
  firstReadAt: number | undefined;

  /** The offset the next record gets (the high watermark: everything is committed at once). */
  get end(): bigint {
    return BigInt(this.records.length);
  }

  /**
   * Appends a producer's batch; answers its first offset, or a Kafka error
   * code when the idempotent producer's sequence is out of order.
   */
  append(batch: IncomingBatch): { baseOffset: bigint } | { error: number } {
    const idempotent = batch.producerId >= 0n;
    let state = idempotent ? this.#producers.get(batch.producerId) : undefined;
    if (state && idempotent) {
      if (batch.producerEpoch < state.epoch) return { error: INVALID_PRODUCER_EPOCH };
      if (batch.producerEpoch > state.epoch) state = undefined;
      else {
        const seen = state.recent.get(batch.baseSequence);
        if (seen !== undefined) return { baseOffset: seen };
        if (batch.baseSequence !== state.nextSequence) {
          return { error: OUT_OF_ORDER_SEQUENCE_NUMBER };
        }
      }
    }
    const baseOffset = this.end;
    for (const r of batch.records) {
      this.records.push({ ...r, offset: this.end });
    }
    if (idempotent) {
      state ??= { epoch: batch.producerEpoch, nextSequence: 0, recent: new Map() };
      state.epoch = batch.producerEpoch;
      state.nextSequence = batch.baseSequence + batch.records.length;
      state.recent.set(batch.baseSequence, baseOffset);
      if (state.recent.size > REMEMBERED_BATCHES) {
        state.recent.delete(state.recent.keys().next().value!);
      }
      this.#producers.set(batch.producerId, state);
    }
    return { baseOffset };
  }

  /** Records from `offset` on, at most about `maxBytes` of values (at least one record). */
  read(offset: bigint, maxBytes: number): StoredRecord[] {
    const out: StoredRecord[] = [];
    let bytes = 0;
    for (let i = Number(offset); i < this.records.length; i++) {
      const r = this.records[i];
      bytes += (r.value?.byteLength ?? 0) + (r.key?.byteLength ?? 0) + 32;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(r);
    }
    if (out.length > 0) this.firstReadAt ??= performance.now();
    return out;
  }
}

/** Every topic, and whoever waits for an append. */
export class Log {
  readonly topics = new Map<string, Partition[]>();
  #waiters = new Set<() => void>();
  #nextProducerId = 1000n;

  /** Creates `name` with `partitions` partitions; false when it exists. */
  create(name: string, partitions: number): boolean {
    if (this.topics.has(name)) return false;
    this.topics.set(name, Array.from({ length: partitions }, () => new Partition()));
    return true;
  }

  /** A partition, or undefined when the topic or partition does not exist. */
  partition(topic: string, index: number): Partition | undefined {
    return this.topics.get(topic)?.[index];
  }

  /** Wakes every waiting fetch (called after appends). */
  appended(): void {
    const waiters = this.#waiters;
    this.#waiters = new Set();
    for (const w of waiters) w();
  }

  /** Resolves on the next append, or after `ms`. */
  waitForAppend(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  /** Ends every wait (the broker is stopping). */
  wakeAll(): void {
    this.appended();
  }

  /** A new idempotent producer id. */
  newProducerId(): bigint {
    return this.#nextProducerId++;
  }
}
