/**
 * Execution lanes: a fixed number of queues inside one replica. Work for an
 * instance always lands on the lane its id hashes to; a lane runs one item
 * at a time, and the items of one key one after another, in the order they
 * were offered. The claim on the instance row keeps replicas (and any
 * mis-routed work) apart.
 *
 * Waiting on a data store is not running: an item that calls
 * {@link offLane} (the store port of a step does, for every store
 * operation) gives its lane up for as long as the operation takes, so a
 * step queued behind a row lock held by someone else does not stall the
 * unrelated instances behind it. When the operation is over the item takes
 * its lane back ahead of work not started yet (it may hold row locks that
 * others wait for). Its key stays taken meanwhile: the next item of the
 * same key starts only once this one has finished, so an instance's steps
 * still never overlap.
 *
 * A lane's queue may be bounded (`sutra.engine.shard-queue-capacity`). A
 * full lane makes whoever offers more work wait for room, in arrival order,
 * so backpressure reaches the transport holding the message (an HTTP
 * request, a poller tick) and never spills onto another lane. An item
 * waiting off its lane still takes room.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Options for {@link Lanes}. */
export interface LanesOptions {
  /** How many lanes (`sutra.engine.shards`). */
  readonly count: number;
  /** Items a lane holds (running, off-lane and queued) before new work waits; unbounded when absent. */
  readonly capacity?: number;
}

/** One lane's turn-taking: whether an item runs on it, and who waits for it. */
interface Lane {
  busy: boolean;
  /** Items coming back from off-lane work, served first. */
  readonly returning: (() => void)[];
  /** Items not started yet, in the order they reached the lane. */
  readonly fresh: (() => void)[];
  /** Items offered (running, off-lane or queued). */
  depth: number;
  /** Offers waiting for room, oldest first. */
  readonly waiting: (() => void)[];
  /** When the item holding the turn took it (`performance.now()`). */
  since: number;
  /** Items started on the lane. */
  dispatched: number;
}

/** An item while its work runs. */
interface Running {
  readonly lane: number;
  /** {@link offLane} for this item. */
  readonly aside: <T>(operation: () => Promise<T>) => Promise<T>;
  /** It holds its lane's turn. */
  onLane: boolean;
  /** Off-lane operations in flight. */
  away: number;
  /** The turn being taken back, while it is. */
  returning?: Promise<void>;
  finished: boolean;
}

const current = new AsyncLocalStorage<Running>();

/**
 * Runs `operation` without holding the lane of the item it is called from
 * (see the module notes); outside lane work it simply runs it.
 */
export function offLane<T>(operation: () => Promise<T>): Promise<T> {
  const item = current.getStore();
  if (!item || item.finished) return operation();
  return item.aside(operation);
}

/** N lanes addressed by a stable hash of a key. */
export class Lanes {
  readonly count: number;
  readonly #capacity: number | undefined;
  readonly #lanes: Lane[];
  /** Per key, when its last offered item finishes. */
  readonly #keys = new Map<string, Promise<void>>();
  #unfinished = 0;
  #idle: (() => void)[] = [];

  constructor(options: LanesOptions) {
    this.count = options.count;
    this.#capacity = options.capacity;
    this.#lanes = Array.from({ length: options.count }, () => ({
      busy: false,
      returning: [],
      fresh: [],
      depth: 0,
      waiting: [],
      since: 0,
      dispatched: 0,
    }));
  }

  /** The lane a key hashes to (FNV-1a, stable across processes and restarts). */
  laneOf(key: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) {
      hash ^= key.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % this.count;
  }

  /**
   * Runs `work` on the key's lane, after the key's earlier items have
   * finished and once the lane is free; on a full lane, first waits for room.
   */
  run<T>(key: string, work: (lane: number) => Promise<T>): Promise<T> {
    const lane = this.laneOf(key);
    const state = this.#lanes[lane];
    this.#unfinished++;
    const full = this.#capacity !== undefined &&
      (state.depth >= this.#capacity || state.waiting.length > 0);
    let room: Promise<void> | undefined;
    if (full) room = new Promise((resolve) => state.waiting.push(resolve));
    else state.depth++;
    // The key's order is taken now, at the offer, whatever happens while waiting for room.
    const before = this.#keys.get(key);
    const done = Promise.withResolvers<void>();
    this.#keys.set(key, done.promise);
    return this.#item(lane, work, { room, before }).finally(() => {
      done.resolve();
      if (this.#keys.get(key) === done.promise) this.#keys.delete(key);
      this.#finished(lane);
    });
  }

  /** Items the lane holds (running, off-lane and queued) and offers waiting for room. */
  depth(lane: number): number {
    const state = this.#lanes[lane];
    return state.depth + state.waiting.length;
  }

  /** Items started on the lane so far. */
  dispatched(lane: number): number {
    return this.#lanes[lane].dispatched;
  }

  /**
   * The lanes held by one item for `stallMs` or longer: everything hashed
   * to them waits behind it and has no other home in this process.
   */
  deadLanes(stallMs: number): number[] {
    const now = performance.now();
    return this.#lanes.flatMap((state, lane) =>
      state.busy && now - state.since >= stallMs ? [lane] : []
    );
  }

  /** Resolves once everything offered so far, and every offer waiting for room, has finished. */
  idle(): Promise<void> {
    if (this.#unfinished === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #aside<T>(item: Running, operation: () => Promise<T>): Promise<T> {
    if (item.away++ === 0 && item.onLane) {
      item.onLane = false;
      this.#release(item.lane);
    }
    try {
      return await operation();
    } finally {
      if (--item.away === 0 && !item.onLane && !item.finished) await this.#comeBack(item);
    }
  }

  async #item<T>(
    lane: number,
    work: (lane: number) => Promise<T>,
    waits: { readonly room?: Promise<void>; readonly before?: Promise<void> },
  ): Promise<T> {
    // Each await costs a turn of the microtask queue: none is spent on what is not there.
    if (waits.room) await waits.room;
    if (waits.before) await waits.before;
    if (!this.#takeIfFree(lane)) await new Promise<void>((r) => this.#lanes[lane].fresh.push(r));
    this.#lanes[lane].dispatched++;
    const item: Running = {
      lane,
      aside: (operation) => this.#aside(item, operation),
      onLane: true,
      away: 0,
      finished: false,
    };
    try {
      return await current.run(item, () => work(lane));
    } finally {
      item.finished = true;
      await item.returning;
      if (item.onLane) this.#release(lane);
    }
  }

  /** Takes the lane back for an item whose off-lane work is over (once, however many ended). */
  #comeBack(item: Running): Promise<void> {
    item.returning ??= this.#take(item.lane, "returning").then(() => {
      item.onLane = true;
      item.returning = undefined;
    });
    return item.returning;
  }

  /** Resolves when the lane's turn is this caller's. */
  #take(lane: number, queue: "fresh" | "returning"): Promise<void> {
    if (this.#takeIfFree(lane)) return Promise.resolve();
    return new Promise((resolve) => this.#lanes[lane][queue].push(resolve));
  }

  /** Takes the lane's turn when nobody holds it; whether it did. */
  #takeIfFree(lane: number): boolean {
    const state = this.#lanes[lane];
    if (state.busy) return false;
    state.busy = true;
    state.since = performance.now();
    return true;
  }

  /** Hands the lane's turn to a returning item first, then to the oldest fresh one. */
  #release(lane: number): void {
    const state = this.#lanes[lane];
    const next = state.returning.shift() ?? state.fresh.shift();
    if (next) {
      state.since = performance.now();
      next();
    } else state.busy = false;
  }

  /** A finished item hands its room to the oldest waiting offer, or frees it. */
  #finished(lane: number): void {
    const state = this.#lanes[lane];
    const next = state.waiting.shift();
    if (next) next();
    else state.depth--;
    if (--this.#unfinished === 0) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
    }
  }
}
