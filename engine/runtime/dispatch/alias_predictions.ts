/**
 * Which instance a correlation value leads to, remembered from this
 * process's own commits and lookups, so that a relay can go straight to the
 * instance's lane and claim it with one statement instead of looking the
 * alias up first and claiming after.
 *
 * A prediction is only ever a guess. The claim that uses it checks, in the
 * same statement, that the instance is still the first live holder of the
 * alias — the one the lookup would have named — and a relay whose guess
 * fails forgets it and goes the long way. So what this process never hears
 * of (another replica's commits, an instance purged) costs a round trip,
 * never a wrong resume.
 *
 * @module
 */
import { perDatabase } from "./per_database.ts";
import type { Effects } from "../../executor/mod.ts";
import type { Database } from "../../persistence/mod.ts";

/** Most values remembered per database; the oldest guess goes first (about 200 bytes each). */
const CAPACITY = 50_000;

/** An alias value within a tenant. */
export interface AliasValue {
  readonly tenant: string;
  readonly name: string;
  readonly value: string;
}

/** Guesses, by alias value, at the live instance holding it. */
export class AliasPredictions {
  readonly #holders = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity: number = CAPACITY) {
    this.#capacity = capacity;
  }

  /** The instance `alias` probably leads to, if this process has seen one. */
  predict(alias: AliasValue): string | undefined {
    return this.#holders.get(keyOf(alias));
  }

  /** Remembers that `alias` leads to `instanceId` (committed, or just looked up). */
  remember(alias: AliasValue, instanceId: string): void {
    const key = keyOf(alias);
    this.#holders.delete(key);
    this.#holders.set(key, instanceId);
    if (this.#holders.size > this.#capacity) {
      this.#holders.delete(this.#holders.keys().next().value!);
    }
  }

  /** Forgets `alias` while it still leads to `instanceId` (a later holder stays remembered). */
  forget(alias: AliasValue, instanceId: string): void {
    const key = keyOf(alias);
    if (this.#holders.get(key) === instanceId) this.#holders.delete(key);
  }

  /**
   * Learns from a committed step: the unique aliases it recorded lead to
   * its instance (a non-unique one may have an earlier holder, which the
   * lookup would name first), and the ones it retired — all of them, when
   * the instance ended — no longer do.
   */
  committed(
    tenant: string,
    instanceId: string,
    effects: Pick<Effects, "aliasesRecorded" | "aliasesRetired">,
  ): void {
    for (const a of effects.aliasesRecorded) {
      if (a.unique) this.remember({ tenant, name: a.name, value: a.value }, instanceId);
    }
    for (const a of effects.aliasesRetired) {
      this.forget({ tenant, name: a.name, value: a.value }, instanceId);
    }
  }
}

function keyOf(alias: AliasValue): string {
  return `${alias.tenant}\u0000${alias.name}\u0000${alias.value}`;
}

/** The predictions about `db`'s aliases (one per database handle). */
export const aliasPredictionsOf: (db: Database) => AliasPredictions = perDatabase(() =>
  new AliasPredictions()
);
