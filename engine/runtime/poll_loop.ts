/**
 * The loop every background worker of a replica runs (outbox, sweeps,
 * timers): one pass at a time, the next one after an idle interval — or at
 * once when the pass says there is more to do, or when something {@link
 * PollLoop.wake}s it — until stopped. A failing pass is reported and the
 * loop goes on.
 *
 * "At once" is the next turn of the event loop (`setImmediate`): Deno's
 * zero-delay timer fires about 2 ms later.
 *
 * @module
 */
import { clearImmediate, setImmediate } from "node:timers";

/** Options for {@link PollLoop}. */
export interface PollLoopOptions {
  /** One pass; resolves to true when the next pass should follow at once. */
  readonly pass: () => Promise<boolean>;
  /** Pause after a pass that found nothing more to do, milliseconds. */
  readonly intervalMs: number;
  /** Told about a pass that threw. */
  readonly onError: (error: unknown) => void;
}

/** Runs passes until stopped; the first pass starts at once. */
export class PollLoop {
  readonly #o: PollLoopOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #immediate: ReturnType<typeof setImmediate> | undefined;
  #running: Promise<void> = Promise.resolve();
  /** A pass is in flight or queued for the next turn. */
  #busy = false;
  /** Woken during a pass: the next one follows it at once. */
  #woken = false;
  #stopped = false;

  constructor(options: PollLoopOptions) {
    this.#o = options;
  }

  /** Starts the first pass. */
  start(): void {
    this.#run();
  }

  /**
   * Runs a pass now instead of at the end of the idle interval; during a
   * pass, has the next one follow it at once (work that arrived while it ran
   * may have missed it).
   */
  wake(): void {
    if (this.#stopped) return;
    if (this.#busy) {
      this.#woken = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#busy = true;
    this.#soon();
  }

  /** Stops scheduling passes and waits for the one in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearImmediate(this.#immediate);
    await this.#running;
    // The pass just awaited may have queued the next one.
    clearImmediate(this.#immediate);
  }

  /** The next pass on the next turn of the event loop. */
  #soon(): void {
    this.#immediate = setImmediate(() => {
      this.#immediate = undefined;
      this.#run();
    });
  }

  #run(): void {
    if (this.#stopped) {
      this.#busy = false;
      return;
    }
    this.#busy = true;
    this.#woken = false;
    this.#running = this.#tick();
  }

  async #tick(): Promise<void> {
    let again = false;
    try {
      again = await this.#o.pass();
    } catch (error) {
      this.#o.onError(error);
    }
    if (this.#stopped) {
      this.#busy = false;
      return;
    }
    if (again || this.#woken) {
      this.#soon();
      return;
    }
    this.#busy = false;
    this.#timer = setTimeout(() => this.#run(), this.#o.intervalMs);
  }
}
