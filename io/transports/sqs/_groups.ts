/**
 * Per-group order for FIFO queues. SQS hands out the messages of one
 * `MessageGroupId` in order, but a receive may bring several of a group at
 * once, and the consumer runs the messages in hand concurrently. Work
 * submitted under a group key runs one item after another, in the order it
 * was submitted; work without a key runs at once.
 *
 * When an item ends without consuming its message (handed back for a
 * retry, or abandoned at shutdown), the items of its group queued behind it
 * are told so and hand their messages back unprocessed: SQS then offers the
 * group again from the first unconsumed message, so a later message never
 * overtakes an earlier one.
 *
 * @module
 */

/** One item of work: `broken` says an earlier item of its group did not consume its message. */
export type GroupWork = (broken: boolean) => Promise<boolean>;

interface Group {
  tail: Promise<void>;
  pending: number;
  broken: boolean;
}

/** Serialises work per group key. */
export class GroupOrder {
  readonly #groups = new Map<string, Group>();

  /**
   * Runs `work` after the earlier work of `key` (at once without a key).
   * `work` answers true when it consumed its message; it must not reject.
   */
  submit(key: string | undefined, work: GroupWork): Promise<void> {
    if (key === undefined) return work(false).then(() => {});
    let group = this.#groups.get(key);
    if (!group) {
      this.#groups.set(key, group = { tail: Promise.resolve(), pending: 0, broken: false });
    }
    const g = group;
    g.pending++;
    const run = g.tail.then(async () => {
      if (!await work(g.broken)) g.broken = true;
    }).finally(() => {
      // The last item of a run of the group forgets it: the next receive starts afresh.
      if (--g.pending === 0) this.#groups.delete(key);
    });
    g.tail = run;
    return run;
  }

  /** Groups with work queued or running. */
  get size(): number {
    return this.#groups.size;
  }
}
