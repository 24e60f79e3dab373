/**
 * Schedules: the timer start events of active deployments. A schedule has
 * no instance until it fires; its row holds the next due instant on the
 * timer's grid. Rows are armed when their deployment is active (and again
 * at boot), resolved when it stops being active, and spent when the grid
 * has no slot left.
 *
 * A fire starts one instance with empty variables. Slots missed while no
 * engine ran coalesce into that one fire, and each of them still counts
 * against a bounded cycle's repeat budget, so `R3/PT12H` never outlives
 * its third slot. The row moves on in the same transaction that inserts
 * the instance, guarded by the due instant it was read with, so a slot
 * never fires twice.
 *
 * A timer start written as a FEEL expression is evaluated with no
 * variables (there is no instance yet): when the schedule is armed, for its
 * first due instant, and when it fires, for the next slot. Such an
 * expression can only compute a constant, so both agree. A value that is no
 * timer spends the schedule without a fire, logged with the executor's code
 * (`SUTRA.RUNTIME.TIMER.INVALID`).
 *
 * @module
 */
import { FeelContext } from "../../../lang/feel/mod.ts";
import type { ExecutionPlan, Schedule, TimerSpec } from "../../bpmn/mod.ts";
import { coalesce, evaluateTimer, firstDue } from "../../executor/mod.ts";
import type { Logger } from "../../core/mod.ts";
import type { Queryable, Transaction } from "../../persistence/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { type Started, startInstance } from "../dispatch/advance.ts";
import { type RuntimeContext, stepContext } from "../services.ts";

/** An armed schedule row. */
export interface ScheduleRow {
  readonly tenant: string;
  readonly deploymentId: string;
  readonly processId: string;
  readonly nodeId: string;
  /** Epoch milliseconds. */
  readonly dueAt: number;
  /** Grid slots before the one due at `dueAt`. */
  readonly slots: number;
}

/** Every plan of a deployment once (several process ids may share one plan). */
function plansOf(deployment: ActiveDeployment): Set<ExecutionPlan> {
  return new Set(deployment.plans.values());
}

/**
 * Arms the schedules of every active deployment (a new row is due at the
 * timer's first instant; a resolved row is armed again where its grid left
 * off) and resolves the armed rows of every other deployment.
 */
export async function reconcileSchedules(ctx: RuntimeContext): Promise<void> {
  const now = ctx.clock.now();
  const active = ctx.deployments.registry.list().filter((d) => d.status === "active");
  for (const deployment of active) {
    for (const plan of plansOf(deployment)) {
      for (const s of plan.schedules) {
        const spec = scheduleSpec(s, now, ctx.logger, deployment.deploymentId);
        await armSchedule(ctx.db, deployment, s, spec && firstDue(spec, now));
      }
    }
  }
  const params: unknown[] = active.map((d) => d.deploymentId);
  const keep = params.length === 0
    ? ""
    : `and deployment_id not in (${params.map((_, i) => `$${i + 1}`).join(", ")})`;
  await ctx.db.query(
    `update schedules set status = 'resolved', updated_at = now() where status = 'armed' ${keep}`,
    params,
  );
}

/**
 * True once every schedule of every active deployment has its row. Arming
 * follows a registry change asynchronously, so a caller that deploys and
 * then reads the armed set (a fast-forward) waits for this first.
 */
export async function schedulesArmed(
  db: Queryable,
  registry: DeploymentRegistry,
): Promise<boolean> {
  for (const deployment of registry.list()) {
    if (deployment.status !== "active") continue;
    let expected = 0;
    for (const plan of plansOf(deployment)) expected += plan.schedules.length;
    if (expected === 0) continue;
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from schedules
        where tenant = $1 and deployment_id = $2 and status <> 'resolved'`,
      [deployment.tenant, deployment.deploymentId],
    );
    if (rows[0].n < expected) return false;
  }
  return true;
}

/**
 * The timer of a schedule: its literal spec, or what its expression gives
 * with no variables at `now`; undefined (and logged) when that is no timer.
 */
export function scheduleSpec(
  s: Schedule,
  now: number,
  logger: Logger,
  deploymentId: string,
): TimerSpec | undefined {
  if (s.timer) return s.timer;
  const r = evaluateTimer(s.timerExpression!, new FeelContext(), { now, node: s.nodeId });
  if (r.ok) return r.spec;
  logger.error(`schedule ${s.process}/${s.nodeId}: ${r.message}`, {
    code: r.code,
    deploymentId,
    ...r.attributes,
  });
  return undefined;
}

// A schedule whose expression gives no timer gets a spent row: it never fires, the operator sees
// it beside the others, and callers that wait for every schedule to have its row do not wait forever.
async function armSchedule(
  db: Queryable,
  deployment: ActiveDeployment,
  s: Schedule,
  due: number | undefined,
): Promise<void> {
  const status = due === undefined ? "spent" : "armed";
  await db.query(
    `insert into schedules (tenant, deployment_id, process_id, node_id, due_at, status)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (tenant, deployment_id, process_id, node_id) do update
       set status = $6, updated_at = now()
       where schedules.status = 'resolved'`,
    [
      deployment.tenant,
      deployment.deploymentId,
      s.process,
      s.nodeId,
      due === undefined ? null : new Date(due),
      status,
    ],
  );
}

/** Armed schedules due at `now`, earliest first. */
export async function dueSchedules(
  db: Queryable,
  now: number,
  limit: number,
): Promise<ScheduleRow[]> {
  const { rows } = await db.query<{
    tenant: string;
    deployment_id: string;
    process_id: string;
    node_id: string;
    due_at: Date;
    slots: number;
  }>(
    `select tenant, deployment_id, process_id, node_id, due_at, slots from schedules
      where status = 'armed' and due_at <= $1
      order by due_at limit $2`,
    [new Date(now), limit],
  );
  return rows.map((r) => ({
    tenant: r.tenant,
    deploymentId: r.deployment_id,
    processId: r.process_id,
    nodeId: r.node_id,
    dueAt: new Date(r.due_at).getTime(),
    slots: r.slots,
  }));
}

/** Thrown inside a fire's transaction when another fire moved the row first. */
class ScheduleMovedError extends Error {
  constructor() {
    super("the schedule was fired or resolved meanwhile");
    this.name = "ScheduleMovedError";
  }
}

/** What became of one due schedule. */
export type ScheduleFire = "fired" | "skipped";

/** Fires one due schedule on `lane` (the caller runs this on the new instance's lane). */
export async function fireSchedule(
  ctx: RuntimeContext,
  row: ScheduleRow,
  w: { readonly instanceId: string; readonly lane: number },
): Promise<ScheduleFire> {
  const deployment = ctx.deployments.registry.get(row.deploymentId);
  const plan = deployment?.plans.get(row.processId);
  const schedule = plan?.schedules.find((s) =>
    s.process === row.processId && s.nodeId === row.nodeId
  );
  // Reconciliation resolves the row of a deployment that is no longer active.
  if (!deployment || deployment.status !== "active" || !plan || !schedule) return "skipped";
  const now = ctx.clock.now();
  const spec = scheduleSpec(schedule, now, ctx.logger, row.deploymentId);
  if (spec === undefined) {
    // Nothing says when the next slot is: the schedule is spent rather than fired forever.
    await ctx.db.transaction((tx) => advance(tx, row, { slot: row.slots + 1, fired: false }))
      .catch((error) => {
        if (!(error instanceof ScheduleMovedError)) throw error;
      });
    return "skipped";
  }
  const { slot, next } = coalesce(spec, row.dueAt, row.slots, now);
  let started: Started;
  try {
    started = await startInstance(stepContext(ctx), plan, {
      type: "start",
      instanceId: w.instanceId,
      process: row.processId,
      node: row.nodeId,
    }, {
      tenant: row.tenant,
      instanceId: w.instanceId,
      deployment,
      also: (tx) => advance(tx, row, { slot, next, fired: true }),
    });
    if (started.kind === "refused-step") {
      ctx.logger.error(`schedule ${row.processId}/${row.nodeId} could not start an instance`, {
        code: "SUTRA.TIMER.SCHEDULE_REFUSED",
        deploymentId: row.deploymentId,
        cause: started.refusal.code,
        detail: started.refusal.message,
      });
      // That occurrence is spent all the same; the next one may start.
      await ctx.db.transaction((tx) => advance(tx, row, { slot, next, fired: false }));
    }
  } catch (error) {
    if (error instanceof ScheduleMovedError) return "skipped";
    throw error;
  }
  if (started.kind === "committed" && started.outcome.kind === "refused") {
    // The slot stays due: the next poll tries again.
    ctx.logger.error(`schedule ${row.processId}/${row.nodeId} could not commit its start`, {
      code: "SUTRA.TIMER.FIRE_FAILED",
      deploymentId: row.deploymentId,
      cause: started.outcome.diagnostics[0]?.code,
    });
    return "skipped";
  }
  return started.kind === "committed" ? "fired" : "skipped";
}

async function advance(
  tx: Transaction,
  row: ScheduleRow,
  o: { slot: number; next?: number; fired: boolean },
): Promise<void> {
  const moved = await tx.query(
    `update schedules set slots = $6, due_at = $7, fires = fires + $8,
       status = case when $7::timestamptz is null then 'spent' else 'armed' end, updated_at = now()
      where tenant = $1 and deployment_id = $2 and process_id = $3 and node_id = $4
        and status = 'armed' and due_at = $5`,
    [
      row.tenant,
      row.deploymentId,
      row.processId,
      row.nodeId,
      new Date(row.dueAt),
      o.slot,
      o.next === undefined ? null : new Date(o.next),
      o.fired ? 1 : 0,
    ],
  );
  if (moved.rowCount !== 1) throw new ScheduleMovedError();
}
