/**
 * Every read of the current time in the engine goes through a {@link Clock},
 * so tests and time-travel simulation can install a manually advanced one.
 *
 * @module
 */

/** A source of the current instant. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and simulation. */
export class ManualClock implements Clock {
  #now: number;

  /** @param start the initial instant: epoch milliseconds or an ISO-8601 timestamp. */
  constructor(start: number | string = 0) {
    this.#now = typeof start === "number" ? start : parseInstant(start);
  }

  /** The current manual instant. */
  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `millis` (never backwards). */
  advance(millis: number): void {
    if (!Number.isFinite(millis) || millis < 0) {
      throw new RangeError(`a manual clock advances by a non-negative amount, got ${millis}`);
    }
    this.#now += millis;
  }

  /** Jumps to an instant at or after the current one. */
  set(instant: number | string): void {
    const next = typeof instant === "number" ? instant : parseInstant(instant);
    if (next < this.#now) {
      throw new RangeError("a manual clock never moves backwards");
    }
    this.#now = next;
  }
}

function parseInstant(text: string): number {
  const millis = Date.parse(text);
  if (Number.isNaN(millis)) throw new RangeError(`'${text}' is not an ISO-8601 instant`);
  return millis;
}
