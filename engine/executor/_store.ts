/**
 * Data-store access for one step. Reads go through the store port, seen
 * through the writes not yet committed (the step's own, then those buffered
 * by enclosing transactions), so a flow reads what it wrote. Writes outside
 * a transaction become effects of the step; writes inside a transaction
 * wait in the transaction's scope until it ends normally (commit) or is
 * cancelled (rollback: they are dropped).
 *
 * @module
 */
import { FeelContext, type FeelValue, fromJs, toJs } from "../../lang/feel/mod.ts";
import type { StoreWriteEffect } from "./effects.ts";
import type { StorePort } from "./ports.ts";
import type { BufferedWrite, InstanceState, ScopeInstance } from "./state.ts";
import { ExecutorCode, StepFailure } from "./_failure.ts";
import { errorMessage } from "../core/errors.ts";

/** A keyed read. */
export interface StoreRead {
  readonly store: string;
  readonly key: string;
  readonly forUpdate: boolean;
  readonly field?: string;
  /** Remember the revision for a later compare-and-set write. */
  readonly optimistic: boolean;
}

/** A value read from a store, with the store's sensitivity class when it has one. */
export interface StoreValue {
  readonly value: FeelValue;
  readonly dataClass?: string;
}

/** Reads and buffered writes of one step. */
export class StoreAccess {
  /** Writes committed with this step. */
  readonly pending: BufferedWrite[] = [];
  readonly #state: InstanceState;
  readonly #port?: StorePort;

  constructor(state: InstanceState, port?: StorePort) {
    this.#state = state;
    this.#port = port;
  }

  /** The innermost transaction enclosing `scope`, if any. */
  transactionOf(scope: ScopeInstance): ScopeInstance | undefined {
    for (
      let s: ScopeInstance | undefined = scope;
      s;
      s = s.parent === undefined ? undefined : this.#state.scopes.get(s.parent)
    ) {
      if (s.kind === "transaction") return s;
    }
    return undefined;
  }

  /** Buffers a write where it commits: the innermost transaction, else the step. */
  write(scope: ScopeInstance, write: BufferedWrite): void {
    const tx = this.transactionOf(scope);
    if (tx) (tx.writes ??= []).push(write);
    else this.pending.push(write);
  }

  /** Commits a transaction's writes one level out (the enclosing transaction, else the step). */
  commit(tx: ScopeInstance): void {
    const writes = tx.writes ?? [];
    delete tx.writes;
    const parent = tx.parent === undefined ? undefined : this.#state.scopes.get(tx.parent);
    for (const w of writes) {
      if (parent) this.write(parent, w);
      else this.pending.push(w);
    }
  }

  /**
   * The value under the key as `scope` sees it (null when absent), with the
   * store's sensitivity class when it declares one.
   */
  read(scope: ScopeInstance, read: StoreRead): StoreValue | Promise<StoreValue> {
    const layers = this.#layers(scope, read.store, read.key);
    let start = -1;
    for (let i = layers.length - 1; i >= 0; i--) {
      if (layers[i].field === undefined) {
        start = i;
        break;
      }
    }
    const port = this.#port;
    if (start >= 0) {
      // Answered from the step's own writes: the store is asked only for its class.
      const value = project(compose(layers[start].value, layers.slice(start + 1)), read);
      let dataClass;
      try {
        dataClass = port?.dataClass?.(read.store);
      } catch (e) {
        throw readFailure(read, e);
      }
      return dataClass instanceof Promise
        ? dataClass.then(
          (c) => classified(value, c),
          (e) => Promise.reject(readFailure(read, e)),
        )
        : classified(value, dataClass);
    }
    if (!port) {
      throw new StepFailure(
        ExecutorCode.STORE_FAILED,
        `data store '${read.store}' is read but no store port was supplied`,
      );
    }
    let record;
    try {
      record = port.read({ store: read.store, key: read.key, forUpdate: read.forUpdate });
    } catch (e) {
      throw readFailure(read, e);
    }
    const finish = (r: Awaited<typeof record>): StoreValue => {
      if (read.optimistic && r?.rev !== undefined) {
        this.#state.revisions.set(revisionKey(read.store, read.key), r.rev);
      }
      const value = project(compose(r === undefined ? null : fromJs(r.value), layers), read);
      return classified(value, r?.dataClass);
    };
    return record instanceof Promise
      ? record.then(finish, (e) => Promise.reject(readFailure(read, e)))
      : finish(record);
  }

  /** The revision read earlier for a compare-and-set write. */
  revision(store: string, key: string): number | undefined {
    return this.#state.revisions.get(revisionKey(store, key));
  }

  /** The step's writes as effects. */
  effects(): StoreWriteEffect[] {
    return this.pending.map((w) => {
      const e: { -readonly [K in keyof StoreWriteEffect]: StoreWriteEffect[K] } = {
        store: w.store,
        key: w.key,
        value: toJs(w.value),
      };
      if (w.field !== undefined) e.field = w.field;
      if (w.expectRev !== undefined) e.expectRev = w.expectRev;
      return e;
    });
  }

  // Uncommitted writes to the key, oldest first: the step's, then each
  // enclosing transaction's from the outermost in.
  #layers(scope: ScopeInstance, store: string, key: string): BufferedWrite[] {
    const txs: ScopeInstance[] = [];
    for (
      let s: ScopeInstance | undefined = scope;
      s;
      s = s.parent === undefined ? undefined : this.#state.scopes.get(s.parent)
    ) {
      if (s.kind === "transaction" && s.writes) txs.unshift(s);
    }
    const out: BufferedWrite[] = [];
    for (const w of this.pending) if (w.store === store && w.key === key) out.push(w);
    for (const tx of txs) {
      for (const w of tx.writes!) if (w.store === store && w.key === key) out.push(w);
    }
    return out;
  }
}

function classified(value: FeelValue, dataClass: string | undefined): StoreValue {
  return dataClass === undefined ? { value } : { value, dataClass };
}

function revisionKey(store: string, key: string): string {
  return `${store}\u0000${key}`;
}

function readFailure(read: StoreRead, e: unknown): StepFailure {
  return new StepFailure(
    ExecutorCode.STORE_FAILED,
    `reading '${read.key}' from data store '${read.store}' failed: ${errorMessage(e)}`,
    undefined,
    { store: read.store },
  );
}

/** Applies field writes over a base value. */
function compose(base: FeelValue, writes: readonly BufferedWrite[]): FeelValue {
  let value = base;
  for (const w of writes) {
    if (w.field === undefined) {
      value = w.value;
      continue;
    }
    const entries = value instanceof FeelContext ? new Map(value.entries) : new Map();
    entries.set(w.field, w.value);
    value = new FeelContext(entries);
  }
  return value;
}

function project(value: FeelValue, read: StoreRead): FeelValue {
  if (read.field === undefined) return value;
  return value instanceof FeelContext ? value.entries.get(read.field) ?? null : null;
}
