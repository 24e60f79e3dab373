/**
 * Claims batched across lanes, the way group commit batches writes: the
 * claims the lanes ask for while earlier ones are on their way to the
 * database go together, one statement per tenant (`claimInstances`), so a
 * burst of N resumes costs the database one short transaction instead of
 * N. A claim is a compare-and-set committed without waiting for its log
 * flush, so a batch is quick; up to {@link IN_FLIGHT} go out at once, each
 * as soon as it is asked, so claims wait to be batched only once the
 * database falls behind — waiting for the claim before it would add a round
 * trip to every resume, which a closed loop of clients pays in throughput.
 *
 * A claim the batch did not take is asked again alone (`claimInstance`),
 * which takes it if it has become free since and otherwise says why it was
 * refused (held, moved, ended, missing) — the answers a lone claim gives.
 *
 * @module
 */
import { perDatabase } from "./per_database.ts";
import type { Database } from "../../persistence/mod.ts";
import {
  type BatchedClaim,
  type ClaimedInstance,
  claimInstance,
  claimInstances,
  type ClaimKey,
  type ClaimOptions,
  type ClaimRefusal,
} from "../instances/repository.ts";

/** Batches on their way to the database at once. */
const IN_FLIGHT = 4;

/** Most claims one statement takes. */
const MAX_BATCH = 64;

interface Waiting extends BatchedClaim {
  resolve(claimed: ClaimedInstance | ClaimRefusal): void;
  reject(error: unknown): void;
}

/** Takes the claims of one database in batches. */
export class ClaimBatcher {
  readonly #db: Database;
  #waiting: Waiting[] = [];
  #inFlight = 0;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Claims as `claimInstance` does: the claimed instance, or why not. */
  claim(key: ClaimKey, options: ClaimOptions = {}): Promise<ClaimedInstance | ClaimRefusal> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, ...options, resolve, reject });
      if (this.#inFlight < IN_FLIGHT) void this.#send();
    });
  }

  async #send(): Promise<void> {
    this.#inFlight++;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, MAX_BATCH);
        const tenants = Map.groupBy(batch, (w) => w.key.tenant);
        await Promise.all([...tenants].map(([tenant, own]) => this.#claim(tenant, own)));
      }
    } finally {
      this.#inFlight--;
    }
  }

  async #claim(tenant: string, batch: readonly Waiting[]): Promise<void> {
    let taken: (ClaimedInstance | undefined)[] = [];
    if (batch.length > 1) {
      try {
        taken = await claimInstances(this.#db, tenant, batch);
      } catch {
        // Whatever broke the statement, each claim asked alone below meets it for itself.
      }
    }
    await Promise.all(batch.map(async (w, at) => {
      try {
        w.resolve(taken[at] ?? await claimInstance(this.#db, w.key, w));
      } catch (error) {
        w.reject(error);
      }
    }));
  }
}

/** The claim batcher of `db` (one per database handle). */
export const claimsOf: (db: Database) => ClaimBatcher = perDatabase((db) => new ClaimBatcher(db));
