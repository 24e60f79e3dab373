/**
 * Polls a queue-like source until it has given enough messages: the shared
 * `await` of the broker test clients.
 *
 * @module
 */

/** Options for {@link takeUntil}. */
export interface TakeUntilOptions {
  /** What is being read, for the timeout message (a queue name). */
  readonly what: string;
  readonly count: number;
  readonly timeoutMs: number;
  /** Pause between empty polls. */
  readonly pollMs: number;
}

/**
 * Calls `take` until it has answered `count` items in all and answers them
 * (more when the last poll brought more); throws naming `what` and how many
 * came once `timeoutMs` has passed.
 */
export async function takeUntil<T>(
  take: () => Promise<readonly T[]>,
  o: TakeUntilOptions,
): Promise<T[]> {
  const got: T[] = [];
  const deadline = Date.now() + o.timeoutMs;
  while (got.length < o.count) {
    got.push(...await take());
    if (got.length >= o.count) break;
    if (Date.now() > deadline) {
      throw new Error(`${o.what}: ${got.length} of ${o.count} messages after ${o.timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
  return got;
}
