/**
 * Bringing a FAILED instance back at the node it failed in — `POST
 * /admin/instances/{id}/retry`, and the `resume` half of a migration.
 *
 * There is no privileged re-drive: the revival is a rewrite of the
 * instance's durable state. The failure is cleared, the failed token
 * replaced by a fresh one, and a timer due at once is armed for it. A task
 * with an attempt to run again (a registered task or a channel call, pull
 * channels included) gets a retry timer with its attempt counter dropped,
 * exactly as the executor arms one between attempts, so the new attempt's
 * request key is new and no broker or pull-task dedup mistakes it for the
 * one that failed. Any other node the token stood on (a script, a gateway
 * with no path, an expression in a mapping) gets a re-entry timer: the node
 * runs again from its start, on the variables as they are now — after an
 * operator fixed them, or on a repaired model after a migration. Tokens
 * the failure stopped before they ran (a parallel branch queued behind the
 * failing node) get a re-entry timer each. The ordinary timer poller then
 * claims the instance and fires the timer,
 * through the same claim-guarded path as every other resume. The aliases
 * the failure retired come back with it (they all carry the failure
 * commit's timestamp, the instance's latest), unless another live instance
 * has taken a unique one meanwhile.
 *
 * Refused, naming the node: a converging gateway (the tokens it merged
 * cannot arrive again), a token that is not on a node it could enter again
 * (a sub-process whose body ended, a compensation in progress), and an
 * instance whose failure also released waits that do not belong to the
 * failed node (another branch parked elsewhere, an event sub-process
 * listening, a timer or message boundary of an enclosing sub-process): the
 * revival cannot re-arm those, and reviving the instance without them
 * would leave it waiting for ever.
 *
 * @module
 */
import type { ExecutionPlan, ProcessPlan } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { InstanceState, Token, Wait } from "../../executor/mod.ts";
import type { Transaction } from "../../persistence/mod.ts";
import { SqlError } from "../../persistence/mod.ts";
import type { LockedRow } from "./instance_lock.ts";

/** Event triggers an instance waits for (the others are thrown, not awaited). */
const WAITED = new Set(["message", "timer", "signal", "conditional"]);

/** A timer a revival armed, with the id of the node it runs. */
export interface Rearmed {
  readonly node: string;
  readonly wait: Wait;
}

/** The fresh attempt a revival armed, and the tokens the failure stopped before they ran. */
export interface Redrive extends Rearmed {
  /** Each re-entered by a timer of its own (a parallel branch that had not run yet, say). */
  readonly queued: readonly Rearmed[];
}

function processOf(plan: ExecutionPlan, state: InstanceState, scope: number): ProcessPlan {
  return plan.processById.get(state.scopes.get(scope)?.process ?? state.process)!;
}

/**
 * Rewrites a FAILED `state` (decoded against `plan`) so the node it failed
 * in runs again: answers the armed timer, or a diagnostic with `code`
 * saying why the failure point cannot be re-driven.
 */
export function redriveFailedNode(
  plan: ExecutionPlan,
  state: InstanceState,
  code: string,
): Redrive | Diagnostic {
  const failedAt = state.failure?.node;
  const refuse = (why: string) =>
    diagnostic(code, `instance ${state.instanceId} cannot be re-driven: ${why}`, {
      attributes: { instanceId: state.instanceId, ...(failedAt ? { node: failedAt } : {}) },
    });
  if (failedAt === undefined) return refuse("its failure names no node");
  const token = [...state.tokens.values()].find((t) =>
    processOf(plan, state, t.scope).nodes[t.node]?.id === failedAt
  );
  if (!token) return refuse(`no token is left at '${failedAt}'`);
  const process = processOf(plan, state, token.scope);
  const node = process.nodes[token.node];
  const kind = node.implementation?.kind;
  const attempts = kind === "registered" || kind === "channel-call";
  if (!attempts && node.join) {
    return refuse(
      `'${failedAt}' is a converging ${node.kind}, and the tokens it merged cannot arrive ` +
        "again; fix the model and start the case again",
    );
  }
  if (!attempts && token.state !== "ready" && token.state !== "waiting") {
    return refuse(`the token at '${failedAt}' (${node.kind}) is not one that can enter it again`);
  }
  // The failure resolved every wait the instance held. The failed node's own
  // come back when it runs again; any other park would stay without its
  // wait and hang the instance silently, so it is named and refused.
  const stranded = [...state.tokens.values()].filter((t) =>
    t !== token && (t.state === "waiting" || t.state === "backoff" || t.state === "continue" ||
      (t.state === "child" && waitedBoundaries(processOf(plan, state, t.scope), t.node)))
  ).map((t) => processOf(plan, state, t.scope).nodes[t.node].id);
  const listening = [...state.scopes.values()].flatMap((scope) =>
    plan.processById.get(scope.process)!.scopes[scope.planScope].eventSubProcesses
      .map((e) => plan.processById.get(scope.process)!.nodes[e.start])
      .filter((start) => start.trigger !== undefined && WAITED.has(start.trigger.type))
      .map((start) => start.id)
  );
  if (stranded.length > 0 || listening.length > 0) {
    return refuse(
      `its failure also released the waits at ${
        [...new Set([...stranded, ...listening])].map((id) => `'${id}'`).join(", ")
      }, which running '${failedAt}' again cannot re-arm`,
    );
  }
  state.status = "WAITING";
  delete state.failure;
  if (attempts) state.attempts.delete(node.id);
  const fresh = { ...token, id: state.nextId++, state: "ready" as const };
  delete fresh.attempt;
  state.tokens.delete(token.id);
  state.tokens.set(fresh.id, fresh);
  const wait = armNow(state, process, fresh, attempts ? "retry" : "reenter");
  const queued = [...state.tokens.values()].filter((t) => t !== fresh && t.state === "ready")
    .map((t) => {
      const owner = processOf(plan, state, t.scope);
      return { node: owner.nodes[t.node].id, wait: armNow(state, owner, t, "reenter") };
    });
  return { node: node.id, wait, queued };
}

/**
 * Arms a timer for `token` due at the epoch, so the next poll fires it whatever the engine clock
 * says.
 */
function armNow(
  state: InstanceState,
  process: ProcessPlan,
  token: Token,
  purpose: "retry" | "reenter",
): Wait {
  const wait: Wait = {
    id: state.nextId++,
    kind: "timer",
    purpose,
    process: process.id,
    node: token.node,
    token: token.id,
    due: 0,
  };
  state.waits.set(wait.id, wait);
  return wait;
}

/** Whether the activity at `index` has a boundary event that waits (a timer, message, signal…). */
function waitedBoundaries(process: ProcessPlan, index: number): boolean {
  return process.nodes[index].boundaries.some((b) => {
    const trigger = process.nodes[b].trigger;
    return trigger !== undefined && WAITED.has(trigger.type);
  });
}

/**
 * Writes the durable half of a revival in `tx`: the timer row, and
 * the aliases the failure commit retired, live again. Answers the alias
 * conflict (with `code`) when another live instance holds one of them now;
 * the caller then rolls back.
 */
export async function reviveRows(
  tx: Transaction,
  row: LockedRow,
  redrive: Redrive,
  code: string,
): Promise<Diagnostic | undefined> {
  for (const armed of [redrive, ...redrive.queued]) {
    await tx.query(
      `insert into waits (tenant, wait_id, instance_id, kind, node_id, due_at, detail)
       values ($1, $2, $3, 'timer', $4, to_timestamp(0), $5)`,
      [row.tenant, `${row.instanceId}:${armed.wait.id}`, row.instanceId, armed.node, {
        wait: armed.wait.id,
        purpose: armed.wait.purpose,
        process: armed.wait.process,
        signal: null,
      }],
    );
  }
  try {
    await tx.query("savepoint revive_aliases");
    await tx.query(
      `update aliases set retired_at = null
        where instance_id = $1 and tenant = $2 and retired_at = (
          select max(retired_at) from aliases where instance_id = $1 and tenant = $2)`,
      [row.instanceId, row.tenant],
    );
    await tx.query("release savepoint revive_aliases");
    return undefined;
  } catch (error) {
    if (!(error instanceof SqlError) || error.code !== "23505") throw error;
    await tx.query("rollback to savepoint revive_aliases");
    return diagnostic(
      code,
      `instance ${row.instanceId} cannot come back: another live instance holds one of its unique aliases now`,
      { attributes: { instanceId: row.instanceId } },
    );
  }
}
