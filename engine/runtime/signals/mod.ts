/**
 * Signals across instances. A signal thrown by a step is broadcast inside
 * its own instance by the executor; for every other instance of the tenant
 * it leaves the step as an outbox row (`signal:<tenant>/<name>`), committed
 * with the step, so a crash after the commit loses no broadcast. The
 * outbox worker hands the row to the signal sink, which
 *
 * - steps every other instance of the tenant holding a signal wait of that
 *   name (catch events, boundaries, event-based gateway branches, event
 *   sub-process starts) with a `signal` input, each on its own lane under
 *   its claim, and
 * - starts one instance of every process of the tenant's active
 *   deployments whose start event catches the signal.
 *
 * Each of those steps records the throw's identity as its dedup key, so a
 * row sent again (an instance was busy, the replica died mid-broadcast)
 * reaches only those it had not reached: at least once for the row, once
 * for each instance.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { OutboundMessage, RemoteSink, SinkResult } from "../../core/transport.ts";
import { newId } from "../../core/ids.ts";
import { advanceInstance, startInstance } from "../dispatch/advance.ts";
import type { DedupKey } from "../dispatch/dedup.ts";
import { type RuntimeContext, stepContext } from "../services.ts";
import { SCHEME, THROWER_HEADER } from "./rows.ts";

export { signalRows } from "./rows.ts";

/** The sink that delivers broadcasts (see the module doc). */
export function signalSink(ctx: RuntimeContext): RemoteSink {
  return {
    name: SCHEME,
    send: (message) => broadcast(ctx, message),
  };
}

async function broadcast(ctx: RuntimeContext, message: OutboundMessage): Promise<SinkResult> {
  const [tenant, name] = message.destination.slice(SCHEME.length + 1).split("/")
    .map(decodeURIComponent);
  const thrower = message.headers[THROWER_HEADER];
  // One key per throw and receiver: the inbox keeps each instance's (or process's) apart.
  const dedup = (receiver: string): DedupKey => ({
    tenant,
    channel: `signal:${name}`,
    eventId: `${message.idempotencyKey}:${receiver}`,
  });
  const { rows } = await ctx.db.query<{ instance_id: string }>(
    `select distinct instance_id from waits
      where tenant = $1 and kind = 'signal' and detail->>'signal' = $2`,
    [tenant, name],
  );
  const step = stepContext(ctx);
  let busy = 0;
  for (const { instance_id: instanceId } of rows) {
    if (instanceId === thrower) continue;
    const reached = await ctx.lanes.run(instanceId, (lane) =>
      advanceInstance(
        step,
        { tenant, instanceId, owner: `${ctx.replicaId}/lane-${lane}` },
        ({ state }) =>
          [...state.waits.values()].some((w) => w.kind === "signal" && w.signal === name)
            ? { type: "signal", name }
            : { leave: `instance ${instanceId} no longer waits for signal '${name}'` },
        { dedup: dedup(instanceId) },
      ));
    // Only a claim held elsewhere is worth another try; an instance this engine cannot load
    // (its deployment is gone) would hold every later try of the row for nothing.
    if (reached.kind === "held") busy++;
  }
  for (const deployment of ctx.deployments.registry.list()) {
    if (deployment.tenant !== tenant || deployment.status !== "active") continue;
    for (const plan of new Set(deployment.plans.values())) {
      for (const start of signalStarts(plan, name)) {
        const instanceId = newId();
        await ctx.lanes.run(instanceId, () =>
          startInstance(step, plan, {
            type: "start",
            instanceId,
            process: start.process,
            node: start.node,
          }, {
            tenant,
            instanceId,
            deployment,
            dedup: dedup(`${deployment.deploymentId}/${start.process}`),
          }));
      }
    }
  }
  return busy === 0 ? { outcome: "delivered" } : {
    outcome: "retry",
    error: `signal '${name}': ${busy} waiting instance(s) were busy; sent again for those`,
  };
}

/** The process start events of `plan` that catch signal `name`. */
function signalStarts(
  plan: ExecutionPlan,
  name: string,
): { readonly process: string; readonly node: string }[] {
  return plan.processes.flatMap((process) =>
    process.scopes[0].nodes.map((i) => process.nodes[i])
      .filter((n) =>
        n.kind === "startEvent" && n.trigger?.type === "signal" && n.trigger.signal === name
      )
      .map((n) => ({ process: process.id, node: n.id }))
  );
}
