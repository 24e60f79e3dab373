/**
 * The loop every background worker of a replica runs (outbox, sweeps,
 * timers): one pass at a time, the next one after an idle interval — or at
 * once when the pass says there is more to do — until stopped. A failing
 * pass is reported and the loop goes on.
 *
 * @module
 */

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
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: PollLoopOptions) {
    this.#o = options;
  }

  /** Starts the first pass. */
  start(): void {
    const tick = async () => {
      let again = false;
      try {
        again = await this.#o.pass();
      } catch (error) {
        this.#o.onError(error);
      }
      if (!this.#stopped) this.#timer = setTimeout(run, again ? 0 : this.#o.intervalMs);
    };
    const run = () => {
      this.#running = tick();
    };
    run();
  }

  /** Stops scheduling passes and waits for the one in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
