/**
 * The start/stop life of a consumer that keeps one session open with
 * {@link keepConnected}: started, it connects (again and again, with
 * backoff); stopped, it aborts its signal, lets the transport drain what is
 * in hand, and waits for the session to end. A start that comes while a
 * stop is under way (a singleton lease lost and won back) runs after it,
 * unless a later stop took it back (lost again meanwhile).
 *
 * @module
 */
import type { Logger } from "../../../engine/core/log.ts";
import { keepConnected } from "./backoff.ts";

/** Options for {@link ConsumerLoop}. */
export interface ConsumerLoopOptions {
  readonly logger: Logger;
  /** What the loop keeps connected, for the logs (e.g. `kafka channel 'orders'`). */
  readonly what: string;
  /**
   * One session: connects, calls `connected` once it consumes, and resolves
   * when the connection is gone or {@link ConsumerLoop.signal} aborts.
   */
  session(connected: () => void): Promise<void>;
  /**
   * Stopping, after the signal aborted and before waiting for the session:
   * let the messages in hand finish, close what makes the session end.
   */
  drain?(): Promise<void>;
  /** Stopping, once the last session ended: release what outlives sessions. */
  closed?(): Promise<void>;
}

/** A consumer's connection loop, started and stopped any number of times. */
export class ConsumerLoop {
  readonly #o: ConsumerLoopOptions;
  #abort = new AbortController();
  #loop: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  /** What the last call asked for: a start deferred behind a stop runs only if still wanted. */
  #wanted = false;

  constructor(options: ConsumerLoopOptions) {
    this.#o = options;
  }

  /** Aborted once the current run is stopping; a fresh signal per start. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Starts the loop unless it runs; after a stop under way when there is one. */
  start(): void {
    this.#wanted = true;
    if (this.#stopping) {
      void this.#stopping.then(() => {
        if (this.#wanted) this.start();
      });
      return;
    }
    if (this.#loop) return;
    this.#abort = new AbortController();
    this.#loop = keepConnected((connected) => this.#o.session(connected), {
      logger: this.#o.logger,
      what: this.#o.what,
      signal: this.#abort.signal,
    });
  }

  /** Stops the loop; resolves once it drained, ended and closed. Calls during a stop share it. */
  stop(): Promise<void> {
    this.#wanted = false;
    if (!this.#loop) return this.#stopping ?? Promise.resolve();
    this.#stopping ??= this.#stop().finally(() => this.#stopping = undefined);
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#abort.abort();
    await this.#o.drain?.();
    await this.#loop;
    this.#loop = undefined;
    await this.#o.closed?.();
  }
}
