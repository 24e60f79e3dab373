/**
 * What the engine hands each background service it starts (timers,
 * external tasks, …): the shared parts of one running engine. A service
 * takes a {@link RuntimeContext} and answers a {@link RuntimeService} the
 * engine stops, in reverse start order, on shutdown.
 *
 * @module
 */
import type { Clock } from "../core/clock.ts";
import type { Config } from "../core/config.ts";
import type { Logger } from "../core/log.ts";
import type { Registry } from "../core/registry.ts";
import type { TransportFactory } from "../core/transport.ts";
import type { Database } from "../persistence/mod.ts";
import type { AdminGate } from "./admin_auth.ts";
import type { DeferredAckRegistry } from "./acks/registry.ts";
import type { DeploymentService } from "./deployments/mod.ts";
import type { AdvanceOptions } from "./dispatch/advance.ts";
import type { Dispatcher } from "./dispatch/intake.ts";
import type { DeploymentStores } from "./dispatch/ports.ts";
import type { Lanes } from "./dispatch/lanes.ts";
import type { Router } from "./http_router.ts";
import type { Protection } from "./audit/mod.ts";

/** The shared parts of one running engine. */
export interface RuntimeContext {
  readonly db: Database;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  /** This replica's id (claims, leases, outbox claims). */
  readonly replicaId: string;
  readonly deployments: DeploymentService;
  readonly dispatcher: Dispatcher;
  readonly lanes: Lanes;
  readonly router: Router;
  readonly admin: AdminGate;
  readonly transports: Registry<TransportFactory>;
  /** The deployments' data stores, opened on first use. */
  readonly stores: DeploymentStores;
  /** Whether steps write the audit journal (`sutra.audit.sql`, read once at boot). */
  readonly auditJournal: boolean;
  /** The audit sinks and the keyring of encryption at rest. */
  readonly protection?: Protection;
  /** Whether instances are deleted as they complete (`sutra.instance.retention` PT0S). */
  readonly deleteAtCompletion: boolean;
  /** Age at which another owner's claim is stale (`sutra.instance.claim-timeout`). */
  readonly claimTimeoutMs: number;
  /** The acknowledgements held until their instances end. */
  readonly acks: DeferredAckRegistry;
  /** Resolves a secret reference (`env:`, `secret:`, `${…}`) with the engine's resolvers. */
  readonly resolveSecret: (reference: string) => Promise<string>;
}

/** What stepping an instance needs, from the engine's parts. */
export function stepContext(ctx: RuntimeContext): AdvanceOptions {
  return {
    db: ctx.db,
    clock: ctx.clock,
    stores: ctx.stores,
    registry: ctx.deployments.registry,
    auditJournal: ctx.auditJournal,
    protection: ctx.protection,
    deleteAtCompletion: ctx.deleteAtCompletion,
    claimTimeoutMs: ctx.claimTimeoutMs,
    acks: ctx.acks,
  };
}

/** A started background service. */
export interface RuntimeService {
  /** Stops it and waits for the work in flight. */
  stop(): Promise<void>;
}
