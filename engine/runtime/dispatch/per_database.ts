/**
 * One lazily made value per database handle: the dispatch path's shared
 * committers, batchers and caches belong to the engine whose database they
 * use, and go away with it.
 *
 * @module
 */
import type { Database } from "../../persistence/mod.ts";

/** Returns a function giving `db`'s own value, made by `make` on first use. */
export function perDatabase<T>(make: (db: Database) => T): (db: Database) => T {
  const values = new WeakMap<Database, T>();
  return (db) => {
    let value = values.get(db);
    if (value === undefined) {
      value = make(db);
      values.set(db, value);
    }
    return value;
  };
}
