/**
 * Firing due timer waits: each one on its instance's lane, under the
 * instance claim, as a `timer` step whose commit deletes the wait row. A
 * claim held elsewhere defers the fire to a later poll; a row whose wait
 * the snapshot no longer holds is dropped.
 *
 * @module
 */
import type { Queryable } from "../../persistence/mod.ts";
import { advanceInstance } from "../dispatch/advance.ts";
import { type RuntimeContext, stepContext } from "../services.ts";

/** A timer wait row whose due instant has passed. */
export interface DueWait {
  readonly tenant: string;
  /** The row key, `${instanceId}:${wait}`. */
  readonly waitId: string;
  readonly instanceId: string;
  /** The wait's id inside the instance state. */
  readonly wait: number;
  /** What the executor armed it for (`catch`, `boundary`, `retry`, `timeout`, …). */
  readonly purpose: string;
}

/** What became of one due wait. */
export type WaitFire = "fired" | "deferred" | "dropped";

/** Timer waits due at `now` (engine clock, epoch ms), earliest first. */
export async function dueWaits(db: Queryable, now: number, limit: number): Promise<DueWait[]> {
  const { rows } = await db.query<{
    tenant: string;
    wait_id: string;
    instance_id: string;
    detail: { wait: number; purpose: string };
  }>(
    `select tenant, wait_id, instance_id, detail from waits
      where kind = 'timer' and due_at <= $1
      order by due_at, wait_id limit $2`,
    [new Date(now), limit],
  );
  return rows.map((r) => ({
    tenant: r.tenant,
    waitId: r.wait_id,
    instanceId: r.instance_id,
    wait: r.detail.wait,
    purpose: r.detail.purpose,
  }));
}

async function dropWait(ctx: RuntimeContext, w: DueWait, why: string): Promise<WaitFire> {
  await ctx.db.query("delete from waits where tenant = $1 and wait_id = $2", [
    w.tenant,
    w.waitId,
  ]);
  ctx.logger.warn(`dropped timer row ${w.waitId}: ${why}`, {
    code: "SUTRA.TIMER.WAIT_STALE",
    instanceId: w.instanceId,
  });
  return "dropped";
}

/** Fires one due wait on `lane` (the caller runs this through the instance's lane). */
export async function fireWait(ctx: RuntimeContext, w: DueWait, lane: number): Promise<WaitFire> {
  const key = {
    tenant: w.tenant,
    instanceId: w.instanceId,
    owner: `${ctx.replicaId}/lane-${lane}`,
  };
  const advanced = await advanceInstance(stepContext(ctx), key, ({ state }) => {
    const held = state.waits.get(w.wait);
    return held?.kind === "timer"
      ? { type: "timer", wait: w.wait }
      : { leave: `the instance no longer holds timer wait ${w.wait}` };
  });
  switch (advanced.kind) {
    case "committed":
      if (advanced.outcome.kind === "settled") return "fired";
      // Left for a later try (a lost claim, a store that refused the step's writes).
      ctx.logger.warn(`instance ${w.instanceId} did not commit its timer step`, {
        code: advanced.outcome.diagnostics[0]?.code,
        instanceId: w.instanceId,
      });
      return "deferred";
    case "held":
    // Not loaded on this replica (yet): a replica that serves it fires it.
    case "unloaded":
      return "deferred";
    case "undecodable":
      ctx.logger.error(`instance ${w.instanceId} cannot be rehydrated to fire a timer`, {
        code: "SUTRA.TIMER.FIRE_FAILED",
        instanceId: w.instanceId,
        cause: advanced.diagnostics[0]?.code,
      });
      return "deferred";
    case "gone":
      return await dropWait(
        ctx,
        w,
        `instance ${w.instanceId} is ${advanced.why === "missing" ? "gone" : "no longer live"}`,
      );
    case "left":
      return await dropWait(ctx, w, advanced.reason);
    case "refused-step":
      return await dropWait(ctx, w, advanced.refusal.message);
  }
}
