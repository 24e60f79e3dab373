/**
 * Administrative cancellation: claim the instance like any resume (a held
 * claim answers 409, retry-safe), step it with a cancel input and commit.
 *
 * @module
 */
import { diagnostic } from "../../core/diagnostic.ts";
import { decodeSnapshot, step } from "../../executor/mod.ts";
import type { Clock } from "../../core/clock.ts";
import type { Database } from "../../persistence/mod.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import { diagnosticResponse, jsonResponse } from "../http_router.ts";
import { claimInstance, releaseClaim } from "../instances/repository.ts";
import { commitResult } from "./commit.ts";
import { portsFor } from "./ports.ts";

/** What a cancellation needs. */
export interface CancelOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  readonly clock: Clock;
  /** Claim owner for administrative steps. */
  readonly owner: string;
}

/** Cancels one instance; answers the HTTP response for `POST /admin/instances/{id}/cancel`. */
export async function cancelInstance(o: CancelOptions, instanceId: string): Promise<Response> {
  const { rows } = await o.db.query<{ tenant: string }>(
    "select tenant from instances where instance_id = $1 order by tenant limit 1",
    [instanceId],
  );
  if (rows.length === 0) {
    return diagnosticResponse(404, [
      diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no instance ${instanceId}`, {
        attributes: { instanceId },
      }),
    ]);
  }
  const key = { tenant: rows[0].tenant, instanceId, owner: o.owner };
  const claimed = await claimInstance(o.db, key);
  if (claimed === "held") {
    return diagnosticResponse(409, [
      diagnostic("SUTRA.RUNTIME.RESUME.CLAIM_HELD", `instance ${instanceId} is being advanced`, {
        attributes: { instanceId },
      }),
    ]);
  }
  if (typeof claimed === "string") {
    return diagnosticResponse(409, [
      diagnostic("SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE", `instance ${instanceId} has already ended`, {
        attributes: { instanceId },
      }),
    ]);
  }
  let committed = false;
  try {
    const deployment = o.registry.get(claimed.deploymentId);
    const plan = deployment?.plans.get(claimed.processId);
    const decoded = plan ? decodeSnapshot(plan, claimed.snapshot) : undefined;
    if (!deployment || !plan || !decoded || decoded.diagnostics) {
      return diagnosticResponse(409, [
        diagnostic(
          "SUTRA.RUNTIME.SNAPSHOT.INVALID",
          `instance ${instanceId} cannot be loaded from deployment ${claimed.deploymentId}`,
          { attributes: { instanceId, deploymentId: claimed.deploymentId } },
        ),
      ]);
    }
    const r = await step(
      plan,
      decoded.state,
      { type: "cancel", reason: "admin" },
      portsFor(deployment, o.clock),
    );
    if (r.refusal) return diagnosticResponse(409, [r.refusal]);
    const outcome = await commitResult(o, {
      tenant: key.tenant,
      instanceId,
      deployment,
      plan,
      processId: claimed.processId,
      owner: key.owner,
    }, r);
    if (outcome.kind === "refused") return diagnosticResponse(409, outcome.diagnostics);
    committed = true;
    return jsonResponse(200, { instanceId, status: r.state.status });
  } finally {
    if (!committed) await releaseClaim(o.db, key);
  }
}
