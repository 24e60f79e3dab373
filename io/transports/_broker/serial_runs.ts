/**
 * Start/stop for a consumer whose runs take their own abort signal: each
 * start begins a run once the previous one has wound down, so two runs
 * never consume at once, and a stop aborts the current run (even one still
 * waiting for its turn) and waits for it to end.
 *
 * @module
 */

/** One run: consume until `signal` aborts, then wind down and resolve. */
export type Run = (signal: AbortSignal) => Promise<void>;

/** Runs of one consumer, one after the other; {@link start} and {@link stop} may alternate. */
export class SerialRuns {
  readonly #run: Run;
  #current: { readonly abort: AbortController; readonly done: Promise<void> } | undefined;
  // The last stop's run: a start waits for it.
  #stopping: Promise<void> = Promise.resolve();

  constructor(run: Run) {
    this.#run = run;
  }

  /** Starts a run after the previous one ended; a no-op while one runs. */
  start(): void {
    if (this.#current) return;
    const abort = new AbortController();
    const done = this.#stopping.then(() => this.#run(abort.signal));
    this.#current = { abort, done };
  }

  /** Aborts the current run and resolves once it ended (or the last one did, when none runs). */
  async stop(): Promise<void> {
    const current = this.#current;
    if (!current) return await this.#stopping;
    this.#current = undefined;
    current.abort.abort();
    this.#stopping = current.done;
    await current.done;
  }
}
