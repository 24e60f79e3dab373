/**
 * Running a sub-process body: a scope instance opened under the token, its
 * event sub-processes armed, a token on each entry (its start events, or
 * without one what no flow leads to; for an ad-hoc sub-process its enabled
 * activities). The owning
 * token waits at the sub-process node until the body has nothing left.
 *
 * @module
 */
import type { Execution } from "../behavior.ts";
import type { ScopeInstance, ScopeKind, Token } from "../state.ts";

/**
 * Opens the body of the token's sub-process node and starts its entries
 * (the first `limit` of them; a sequential ad-hoc body starts one).
 */
export function openBody(
  x: Execution,
  token: Token,
  kind: ScopeKind,
  limit = Infinity,
): ScopeInstance {
  const proc = x.processOf(token);
  const node = proc.nodes[token.node];
  const body = x.openScope({
    kind,
    process: proc.id,
    planScope: node.childScope!,
    parent: x.scope(token.scope),
    token,
  });
  token.child = body.id;
  x.park(token, "child");
  const entries = proc.scopes[node.childScope!].entries;
  if (entries.length === 0) {
    closeBody(x, token, body);
    return body;
  }
  for (const entry of entries.slice(0, limit)) x.spawn(body, entry);
  return body;
}

/**
 * The body finished normally: close it and complete the sub-process node,
 * handing on what completed inside it and (for a compensation event
 * sub-process to run with later) its variables.
 */
export function closeBody(x: Execution, token: Token, body: ScopeInstance): void {
  const log = body.compensation;
  x.closeScope(body);
  delete token.child;
  const vars = x.nodeOf(token).compensationStart === undefined ? undefined : body.vars;
  x.complete(token, undefined, log || vars ? { log, vars } : undefined);
}
