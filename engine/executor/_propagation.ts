/**
 * Where thrown errors and escalations go. From the node that threw, the
 * search walks outward: the boundary events of the activity that raised it
 * (an exact code before a catch-all), then the error or escalation event
 * sub-processes of the enclosing scope, then the boundaries of the activity
 * that runs that scope, and so on to the process. An uncaught error fails
 * the instance; an uncaught escalation is only reported.
 *
 * A transaction that an error leaves through a boundary on it drops its
 * buffered writes and is not compensated: BPMN calls this a hazard, where
 * neither a normal end nor a cancel (which compensates, see
 * `_compensation.ts`) is possible.
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../../lang/feel/mod.ts";
import type { NodeIndex } from "../bpmn/mod.ts";
import { diagnostic } from "../core/mod.ts";
import { findEventSubProcess, startEventSubProcess } from "./behaviors/event_sub_process.ts";
import type { Machine } from "./machine.ts";
import type { ScopeInstance, Token } from "./state.ts";
import { rollback } from "./_compensation.ts";
import { ExecutorCode } from "./_failure.ts";

/** Throws a BPMN error from the token's node. */
export function throwError(m: Machine, token: Token, code: string, message: string): void {
  const error = errorValue(code, message);
  let activity: Token | undefined = isActivity(m, token) ? token : undefined;
  let scope = m.scope(token.scope);
  for (;;) {
    if (activity) {
      const b = findBoundary(m, activity, "error", code);
      if (b !== undefined) {
        catchError(m, activity, b, { code, message });
        return;
      }
    }
    const esp = findEventSubProcess(m, scope, "error", code);
    if (esp) {
      startEventSubProcess(m, scope, esp, { vars: new Map([["error", error]]) });
      return;
    }
    const owner = ownerToken(m, scope);
    if (!owner) {
      m.fail(
        token,
        ExecutorCode.UNHANDLED_ERROR,
        `BPMN error '${code}' was not caught: ${message}`,
        {
          errorCode: code,
        },
      );
    }
    activity = owner;
    scope = m.scope(owner.scope);
  }
}

/** Throws an escalation from the token's node; false when nothing caught it. */
export function escalate(m: Machine, token: Token, code: string | undefined): boolean {
  const escalation = new FeelContext(new Map<string, FeelValue>([["code", code ?? null]]));
  let activity: Token | undefined = isActivity(m, token) ? token : undefined;
  let scope = m.scope(token.scope);
  for (;;) {
    if (activity) {
      const b = findBoundary(m, activity, "escalation", code);
      if (b !== undefined) {
        const boundary = m.processOf(activity).nodes[b];
        const t = m.spawn(m.scope(activity.scope), b);
        m.set(t, "escalation", escalation);
        if (boundary.interrupting) m.terminate(activity);
        return true;
      }
    }
    const esp = findEventSubProcess(m, scope, "escalation", code);
    if (esp) {
      startEventSubProcess(m, scope, esp, { vars: new Map([["escalation", escalation]]) });
      return true;
    }
    const owner = ownerToken(m, scope);
    if (!owner) {
      const node = m.nodeOf(token).id;
      (m.effects.diagnostics ??= []).push(diagnostic(
        ExecutorCode.ESCALATION_UNCAUGHT,
        `escalation '${code ?? ""}' thrown at '${node}' was not caught`,
        { severity: "WARNING", attributes: { node } },
      ));
      m.journal.audit("escalation.uncaught", node);
      return false;
    }
    activity = owner;
    scope = m.scope(owner.scope);
  }
}

/** A cancel end event: its transaction rolls back, then continues at its cancel boundary. */
export function cancelTransaction(m: Machine, token: Token): void {
  const tx = m.scope(token.scope);
  const run = m.state.tokens.get(tx.token!)!;
  // A looped transaction's run has no boundaries: they sit on the loop's token, and cancelling
  // one run cancels the whole activity.
  const owner = run.inner ? ownerToken(m, m.scope(run.scope))! : run;
  const proc = m.processOf(owner);
  const boundary = proc.nodes[owner.node].boundaries.find((b) =>
    proc.nodes[b].trigger?.type === "cancel"
  );
  // The end token leaves without completing the transaction.
  m.leaveQuietly(token);
  if (boundary === undefined) {
    m.fail(
      token,
      ExecutorCode.UNHANDLED_ERROR,
      `transaction '${proc.nodes[owner.node].id}' was cancelled but has no cancel boundary event`,
    );
  }
  if (owner !== run) withdrawOtherRuns(m, m.scope(owner.child!), run.scope);
  rollback(m, owner, tx, boundary);
}

/**
 * Ends the runs of a multi-instance `body` other than the one in scope
 * `keep`, so none of them goes on while the cancelled one is rolled back.
 */
function withdrawOtherRuns(m: Machine, body: ScopeInstance, keep: number): void {
  for (const s of [...m.state.scopes.values()]) {
    if (s.parent !== body.id || s.id === keep || s.kind !== "instance") continue;
    m.clear(s);
    delete s.writes;
    m.closeScope(s);
    body.live--;
  }
}

/** The context an error handler sees as `error`. */
export function errorValue(code: string, message: string): FeelValue {
  return new FeelContext(new Map<string, FeelValue>([["code", code], ["message", message]]));
}

function isActivity(m: Machine, token: Token): boolean {
  const kind = m.nodeOf(token).kind;
  return !kind.endsWith("Event") && !kind.endsWith("Gateway");
}

/** The token that runs `scope` from its parent (skipping loop bodies and event sub-process runs). */
function ownerToken(m: Machine, scope: ScopeInstance): Token | undefined {
  let s: ScopeInstance | undefined = scope;
  while (s && s.token === undefined) {
    s = s.parent === undefined ? undefined : m.state.scopes.get(s.parent);
  }
  return s ? m.state.tokens.get(s.token!) : undefined;
}

function findBoundary(
  m: Machine,
  activity: Token,
  type: "error" | "escalation",
  code: string | undefined,
): NodeIndex | undefined {
  // A loop's inner run has no boundaries: they sit on the loop's token.
  if (activity.inner) return undefined;
  const proc = m.processOf(activity);
  let catchAll: NodeIndex | undefined;
  for (const b of proc.nodes[activity.node].boundaries) {
    const trigger = proc.nodes[b].trigger;
    if (trigger?.type !== type) continue;
    const expected = type === "error" ? trigger.errorCode : trigger.escalationCode;
    if (expected === undefined) catchAll ??= b;
    else if (expected === code) return b;
  }
  return catchAll;
}

function catchError(
  m: Machine,
  activity: Token,
  boundary: NodeIndex,
  error: { code: string; message: string },
): void {
  const child = activity.child === undefined ? undefined : m.state.scopes.get(activity.child);
  // Terminating the transaction below drops its buffered writes.
  if (child?.kind === "transaction") {
    m.journal.audit("transaction.rolledBack", m.nodeOf(activity).id);
  }
  const t = m.spawn(m.scope(activity.scope), boundary);
  m.set(t, "error", errorValue(error.code, error.message));
  m.terminate(activity);
}
