/**
 * The in-memory set of deployments this replica serves: the active revision
 * of each slot plus every draining revision whose pinned instances may still
 * resume. The dispatch side reads it; the deployment service is its only
 * writer.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { LoadedPackage } from "../../package/mod.ts";

/** Whether a registered deployment takes new work or only finishes old work. */
export type RegisteredStatus = "active" | "draining";

/** One deployment the engine can run. */
export interface ActiveDeployment {
  /** `sha256(canonical manifest)`, lower-case hex. */
  readonly deploymentId: string;
  /** The package's `tenant` label. */
  readonly tenant: string;
  /** `tenant--module--version`. */
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Draining deployments only serve resumes of the instances pinned to them. */
  readonly status: RegisteredStatus;
  /**
   * The execution plan holding each executable process, keyed by process id
   * (several ids share one plan when a BPMN file defines several processes).
   */
  readonly plans: ReadonlyMap<string, ExecutionPlan>;
  /** The loaded package: channels, stores, codecs, templates, rules, scripts. */
  readonly package: LoadedPackage;
}

/** What the dispatch side consumes. */
export interface DeploymentRegistry {
  /**
   * Active and draining deployments (draining ones only serve resumes of
   * their pinned instances): active ones first, by slot; then draining ones,
   * most recently drained first.
   */
  list(): readonly ActiveDeployment[];
  /** The registered deployment with this id, if any. */
  get(deploymentId: string): ActiveDeployment | undefined;
  /** Called after every change (activation, drain, retire) so transports can rewire. */
  subscribe(listener: () => void): () => void;
}

/** A registered deployment plus the instant it started draining, for ordering. */
export interface RegistryEntry extends ActiveDeployment {
  /** Epoch milliseconds; absent while active. */
  readonly drainedAt?: number;
}

/** The writable registry behind {@link DeploymentRegistry}. */
export class MutableDeploymentRegistry implements DeploymentRegistry {
  #entries = new Map<string, RegistryEntry>();
  #sorted: readonly ActiveDeployment[] = [];
  readonly #listeners = new Set<() => void>();
  readonly #onListenerError: (error: unknown) => void;

  /** `onListenerError` hears a listener's throw; one bad listener never stops the others. */
  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  list(): readonly ActiveDeployment[] {
    return this.#sorted;
  }

  get(deploymentId: string): ActiveDeployment | undefined {
    return this.#entries.get(deploymentId);
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Replaces the whole set at once and notifies listeners when anything changed. */
  replace(entries: Iterable<RegistryEntry>): void {
    const next = new Map<string, RegistryEntry>();
    for (const e of entries) next.set(e.deploymentId, e);
    if (sameSet(this.#entries, next)) return;
    this.#entries = next;
    this.#sorted = [...next.values()].sort(byServingOrder);
    for (const listener of [...this.#listeners]) {
      try {
        listener();
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** The current entries, for building the next set. */
  entries(): readonly RegistryEntry[] {
    return [...this.#entries.values()];
  }
}

function sameSet(a: ReadonlyMap<string, RegistryEntry>, b: ReadonlyMap<string, RegistryEntry>) {
  if (a.size !== b.size) return false;
  for (const [id, e] of a) {
    const o = b.get(id);
    if (!o || o.status !== e.status || o.drainedAt !== e.drainedAt) return false;
  }
  return true;
}

function byServingOrder(a: RegistryEntry, b: RegistryEntry): number {
  if (a.status !== b.status) return a.status === "active" ? -1 : 1;
  if (a.status === "active") return a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0;
  return (b.drainedAt ?? 0) - (a.drainedAt ?? 0) ||
    (a.deploymentId < b.deploymentId ? -1 : 1);
}
