/**
 * Parallel gateway. Diverging: a token goes down every outgoing flow.
 * Converging: tokens wait until one has arrived on every incoming flow of
 * the same scope instance; then one per flow is merged and a single token
 * continues. Extra tokens on an already-served flow wait for the next
 * round.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import type { Token } from "../state.ts";

/** Parallel (AND) gateways. */
export const parallelGateway: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    if (!node.join) {
      x.complete(token, undefined, { flows: node.outgoing });
      return;
    }
    x.park(token, "joined");
    const waiting = joinedAt(x.state.tokens.values(), token);
    const firstPerFlow = new Map<number, Token>();
    for (const t of waiting) if (!firstPerFlow.has(t.arrival!)) firstPerFlow.set(t.arrival!, t);
    if (!node.join.incoming.every((f) => firstPerFlow.has(f))) return;
    const merged = [...firstPerFlow.values()].sort((a, b) => a.id - b.id);
    for (const t of merged.slice(1)) x.absorb(t);
    x.complete(merged[0], undefined, { flows: node.outgoing });
  },
};

/** Tokens waiting at `token`'s join in its scope instance, oldest first. */
export function joinedAt(tokens: Iterable<Token>, token: Token): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    if (t.state === "joined" && t.node === token.node && t.scope === token.scope) out.push(t);
  }
  return out;
}
