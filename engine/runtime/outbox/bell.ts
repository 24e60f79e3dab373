/**
 * The in-process wake-up of a database's outbox worker. A commit that wrote
 * outbox rows rings it, so the rows go out now rather than at the worker's
 * next idle poll (`sutra.outbox.poll-interval`, a second by default). It
 * carries nothing but "look again": rows committed by another replica, or
 * while nobody listens, are found by the poll as before.
 *
 * @module
 */
import type { Database } from "../../persistence/mod.ts";
import { perDatabase } from "../dispatch/per_database.ts";

/** Who listens for rings on one database. */
export class OutboxBell {
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` on every ring until the answered function is called. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener that outbox rows were committed. */
  ring(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** The outbox bell of `db` (one per database handle). */
export const outboxBellOf: (db: Database) => OutboxBell = perDatabase(() => new OutboxBell());
