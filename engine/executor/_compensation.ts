/**
 * Compensation and transaction rollback. A completed activity with a
 * compensation handler is logged in its scope; a finished sub-process is
 * logged with what completed inside it (and, when an event sub-process with
 * a compensation start is its handler, with its body's variables).
 * Compensating runs the handlers one after another, newest first: a
 * boundary-associated handler as a token of the scope the activity ran in;
 * a compensation event sub-process in the sub-process's body, reopened for
 * the purpose with the variables it finished with and its own log (so a
 * compensation thrown inside the handler compensates what ran inside the
 * sub-process); a sub-process with neither through its logged children, in
 * a scope instance of its body opened for the purpose.
 *
 * When the last handler is done, the run's continuation happens: the
 * throwing token moves on or ends, or a rolled-back transaction leaves by
 * the boundary that caught it. A throw with `waitForCompletion="false"`
 * moves on at once; its run is then detached and only keeps the scope it
 * compensates from completing until the last handler is done.
 *
 * A compensation thrown inside an event sub-process run compensates the
 * scope the event sub-process belongs to: that is where the activities it
 * undoes completed (an `activityRef` naming an activity completed inside
 * the run itself is compensated there).
 *
 * @module
 */
import type { NodeIndex } from "../bpmn/mod.ts";
import type { Machine } from "./machine.ts";
import type {
  CompensationEntry,
  CompensationRun,
  Continuation,
  ScopeInstance,
  Token,
} from "./state.ts";
import { errorValue } from "./_propagation.ts";
import { startEventSubProcess } from "./behaviors/event_sub_process.ts";

/** Compensates one logged activity of the token's scope (or all of them), then continues the token. */
export function compensate(
  m: Machine,
  token: Token,
  activity: NodeIndex | undefined,
  end: boolean,
): void {
  const own = m.scope(token.scope);
  const local = activity !== undefined && own.compensation?.some((e) => e.node === activity);
  const scope = own.kind === "eventSubProcess" && !local ? m.scope(own.parent!) : own;
  const log = scope.compensation ?? [];
  const picked = activity === undefined ? log : log.filter((e) => e.node === activity);
  const kept = activity === undefined ? [] : log.filter((e) => e.node !== activity);
  if (kept.length > 0) scope.compensation = kept;
  else delete scope.compensation;
  const then: Continuation = end
    ? { kind: "consume", token: token.id }
    : { kind: "leave", token: token.id };
  if (picked.length === 0) {
    proceed(m, then);
    return;
  }
  if (m.nodeOf(token).trigger?.waitForCompletion === false) {
    // The run is counted in its scope so the scope outlives its handlers.
    scope.live++;
    startRun(m, scope, picked, { kind: "detached" });
    proceed(m, then);
    return;
  }
  token.state = "compensating";
  startRun(m, scope, picked, then);
}

/**
 * A transaction is cancelled: its buffered writes are dropped, its
 * completed activities compensated newest first, then the flow continues
 * at its cancel `boundary`.
 */
export function rollback(
  m: Machine,
  owner: Token,
  tx: ScopeInstance,
  boundary: NodeIndex,
): void {
  m.clear(tx);
  delete tx.writes;
  const log = tx.compensation ?? [];
  delete tx.compensation;
  const then: Continuation = { kind: "boundary", token: owner.id, boundary };
  if (log.length === 0) {
    proceed(m, then);
    return;
  }
  owner.state = "compensating";
  startRun(m, tx, log, then);
}

/** A handler token finished: the next handler runs, or the continuation. */
export function handlerDone(m: Machine, token: Token): void {
  m.removeToken(token, false);
  const run = m.state.compensations.get(token.handler!);
  if (!run) return;
  delete run.handler;
  nextHandler(m, run);
}

/** The reopened body running a sub-process's compensation event sub-process is done. */
export function handlerBodyDone(m: Machine, body: ScopeInstance): void {
  const run = m.state.compensations.get(body.handler!);
  m.closeScope(body);
  if (!run) return;
  run.temporary = run.temporary.filter((id) => id !== body.id);
  nextHandler(m, run);
}

/** Removes a run and the scope instances it opened (a detached run stops counting in its scope). */
export function dropRun(m: Machine, run: CompensationRun): void {
  m.state.compensations.delete(run.id);
  const scope = m.state.scopes.get(run.scope);
  if (run.then.kind === "detached" && scope) scope.live--;
  for (const id of run.temporary) {
    const s = m.state.scopes.get(id);
    if (s) m.closeScope(s);
  }
}

function startRun(
  m: Machine,
  scope: ScopeInstance,
  entries: CompensationEntry[],
  then: Continuation,
): void {
  const queue = [...entries].reverse();
  const run: CompensationRun = {
    id: m.state.nextId++,
    scope: scope.id,
    queue,
    queueScopes: queue.map(() => scope.id),
    temporary: [],
    then,
  };
  m.state.compensations.set(run.id, run);
  nextHandler(m, run);
}

function nextHandler(m: Machine, run: CompensationRun): void {
  while (run.queue.length > 0) {
    const entry = run.queue.shift()!;
    const host = m.scope(run.queueScopes.shift()!);
    const proc = m.process(entry.process);
    const node = proc.nodes[entry.node];
    // A looped activity's entry holds one entry per run: each run is compensated, newest first.
    if (node.compensationHandler !== undefined && !isLoopRuns(entry)) {
      // One run of a multi-instance activity: its handler sees that run's variables.
      const scope = entry.vars === undefined ? host : m.openScope({
        kind: "compensation",
        process: proc.id,
        planScope: node.scope,
        parent: host,
        vars: new Map(entry.vars),
      });
      if (scope !== host) run.temporary.push(scope.id);
      const h = m.spawn(scope, node.compensationHandler);
      h.handler = run.id;
      run.handler = h.id;
      return;
    }
    if (node.compensationStart !== undefined && entry.vars !== undefined) {
      const body = m.openScope({
        kind: "compensation",
        process: proc.id,
        planScope: node.childScope!,
        parent: host,
        vars: new Map(entry.vars),
      });
      body.handler = run.id;
      if (entry.children?.length) body.compensation = [...entry.children];
      run.temporary.push(body.id);
      startEventSubProcess(m, body, proc.nodes[node.compensationStart], {});
      return;
    }
    if (entry.children?.length) {
      // A sub-process's children ran in its body, a called process's in
      // that process's root; a loop's runs of one activity in its scope.
      const called = entry.children[0].process;
      let body = host;
      if (!isLoopRuns(entry) && (called !== proc.id || node.childScope !== undefined)) {
        body = m.openScope({
          kind: "compensation",
          process: called,
          planScope: called !== proc.id ? 0 : node.childScope!,
          parent: host,
        });
        run.temporary.push(body.id);
      }
      const children = [...entry.children].reverse();
      run.queue.unshift(...children);
      run.queueScopes.unshift(...children.map(() => body.id));
    }
  }
  dropRun(m, run);
  if (run.then.kind === "detached") {
    const scope = m.state.scopes.get(run.scope);
    if (scope) m.settleScope(scope);
    return;
  }
  proceed(m, run.then);
}

/** Whether `entry` is a loop's or multi-instance activity's, holding an entry per completed run. */
function isLoopRuns(entry: CompensationEntry): boolean {
  return entry.children !== undefined && entry.children.length > 0 &&
    entry.children.every((c) => c.node === entry.node && c.process === entry.process);
}

function proceed(m: Machine, then: Continuation): void {
  if (then.kind === "detached") return;
  const token = m.state.tokens.get(then.token);
  if (!token) return;
  switch (then.kind) {
    case "leave":
      token.state = "ready";
      m.depart(token);
      return;
    case "consume":
      m.consume(token);
      return;
    case "boundary": {
      const t = m.spawn(m.scope(token.scope), then.boundary);
      // Only snapshots from before errors stopped compensating transactions carry one.
      if (then.error) m.set(t, "error", errorValue(then.error.code, then.error.message));
      m.journal.audit("transaction.rolledBack", m.nodeOf(token).id);
      m.terminate(token);
      return;
    }
  }
}
