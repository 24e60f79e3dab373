/**
 * Leases for transports ({@link TransportContext.lease}): a transport that
 * must consume from one replica only (`singleton: true` channels) asks for
 * a lease on a role; this module keeps trying to take it and, once held,
 * renews it at a third of its time-to-live, telling the transport each time
 * the answer changes. The rows are the engine's `leases` table
 * (`leases.ts`), which transports under `io/` cannot reach themselves.
 *
 * @module
 */
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { TransportContext, TransportLease, TransportLeaseOptions } from "../core/transport.ts";
import type { Queryable } from "../persistence/mod.ts";
import { LEASE_TTL_MS, releaseLease, tryLease } from "./leases.ts";

/** What {@link transportLeases} needs. */
export interface TransportLeasesOptions {
  readonly db: Queryable;
  /** This replica's id: the lease owner. */
  readonly replicaId: string;
  readonly logger: Logger;
}

/** The `lease` capability of a transport context. */
export function transportLeases(
  o: TransportLeasesOptions,
): NonNullable<TransportContext["lease"]> {
  return (role, options) => new HeldLease(o, role, options ?? {});
}

class HeldLease implements TransportLease {
  readonly #o: TransportLeasesOptions;
  readonly #key: { role: string; owner: string; tenant?: string };
  readonly #ttlMs: number;
  readonly #listeners = new Set<(held: boolean) => void>();
  #held = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #released = false;
  #pass: Promise<void> = Promise.resolve();

  constructor(o: TransportLeasesOptions, role: string, options: TransportLeaseOptions) {
    this.#o = o;
    this.#ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    this.#key = {
      role,
      owner: o.replicaId,
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    };
    this.#schedule(0);
  }

  held(): boolean {
    return this.#held;
  }

  onChange(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async release(): Promise<void> {
    this.#released = true;
    clearTimeout(this.#timer);
    await this.#pass;
    this.#set(false);
    try {
      await releaseLease(this.#o.db, this.#key);
    } catch (error) {
      // It expires on its own within the time-to-live.
      this.#o.logger.warn("could not release a transport lease", {
        role: this.#key.role,
        error: errorMessage(error),
      });
    }
  }

  #schedule(ms: number): void {
    if (this.#released) return;
    this.#timer = setTimeout(() => {
      this.#pass = this.#renew();
    }, ms);
  }

  async #renew(): Promise<void> {
    let held = false;
    try {
      held = await tryLease(this.#o.db, this.#key, this.#ttlMs);
    } catch (error) {
      // Unsure whether it is still ours: stop consuming rather than risk two consumers.
      this.#o.logger.warn("could not renew a transport lease", {
        role: this.#key.role,
        error: errorMessage(error),
      });
    }
    if (this.#released) return;
    this.#set(held);
    this.#schedule(this.#ttlMs / 3);
  }

  #set(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    for (const listener of this.#listeners) listener(held);
  }
}
