/**
 * The poison wake: the outbox gave up on a delivery, and the channel call
 * waiting on it should hear about it now rather than at its `q:timeout`.
 * The notification is only a prompt. Under the instance claim the durable
 * rows decide: the outbox row must still be poisoned, and its idempotency
 * key must be the one the waiting call's current attempt sent; anything
 * else is a stale prompt and changes nothing. A lost prompt costs only
 * time, because the call's timeout fires regardless.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import { type InstanceState, requestKey } from "../../executor/mod.ts";
import { advanceInstance } from "../dispatch/advance.ts";
import { type RuntimeContext, stepContext } from "../services.ts";

/** An outbox row that was poisoned (its delivery will never happen). */
export interface PoisonedDelivery {
  readonly tenant: string;
  readonly outboxId: string;
  readonly instanceId: string | null;
  readonly deploymentId: string | null;
  readonly idempotencyKey: string;
  readonly code: string;
  readonly error: string;
}

/** What the prompt led to. */
export type PoisonOutcome = "failed-attempt" | "stale" | "deferred";

/** The response wait of the call whose live attempt sent `key`, if any. */
export function callWaitingOn(
  plan: ExecutionPlan,
  state: InstanceState,
  key: string,
): number | undefined {
  for (const wait of state.waits.values()) {
    if (wait.purpose !== "response" || wait.token === undefined) continue;
    const token = state.tokens.get(wait.token);
    // A call without an outstanding attempt (backing off) has nothing in flight.
    if (!token || token.attempt === undefined || token.state !== "waiting") continue;
    const node = plan.processById.get(wait.process)?.nodes[wait.node];
    if (node && requestKey(state.instanceId, node.id, token) === key) return wait.id;
  }
  return undefined;
}

async function stillPoisoned(ctx: RuntimeContext, d: PoisonedDelivery): Promise<boolean> {
  const { rows } = await ctx.db.query(
    `select 1 from outbox where tenant = $1 and outbox_id = $2 and instance_id = $3
        and idempotency_key = $4 and poisoned_at is not null`,
    [d.tenant, d.outboxId, d.instanceId, d.idempotencyKey],
  );
  return rows.length === 1;
}

/** Re-checks a poisoned delivery under the claim and fails the live attempt it belonged to. */
export async function wakePoisoned(
  ctx: RuntimeContext,
  d: PoisonedDelivery & { readonly instanceId: string },
  lane: number,
): Promise<PoisonOutcome> {
  const key = {
    tenant: d.tenant,
    instanceId: d.instanceId,
    owner: `${ctx.replicaId}/lane-${lane}`,
  };
  const advanced = await advanceInstance(stepContext(ctx), key, async ({ plan, state }) => {
    if (!(await stillPoisoned(ctx, d))) return { leave: "the outbox row is no longer poisoned" };
    const wait = callWaitingOn(plan, state, d.idempotencyKey);
    if (wait === undefined) return { leave: "no live attempt sent that request" };
    return {
      type: "failure",
      wait,
      code: d.code,
      message: `the request delivery was poisoned: ${d.error}`,
    };
  });
  switch (advanced.kind) {
    case "committed":
      if (advanced.outcome.kind === "settled") return "failed-attempt";
      // Left for a later try (a lost claim, a store that refused the step's writes).
      ctx.logger.warn(
        `instance ${d.instanceId} did not commit the failed attempt of its poisoned request`,
        { code: advanced.outcome.diagnostics[0]?.code, instanceId: d.instanceId },
      );
      return "deferred";
    case "held":
      return "deferred";
    default:
      return "stale";
  }
}
