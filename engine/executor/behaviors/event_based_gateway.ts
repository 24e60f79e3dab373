/**
 * Event-based gateway. The token waits on every event that follows the
 * gateway — message, timer, signal and conditional catches, and receive
 * tasks — at once. The first one to be triggered wins: the other waits are
 * withdrawn, the token takes the flow to the winning event, and that event
 * completes with the trigger it received.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";

/** Exclusive event-based gateways. */
export const eventBasedGateway: Behavior = {
  activate(x, token) {
    const proc = x.processOf(token);
    const node = proc.nodes[token.node];
    x.park(token, "waiting");
    for (const f of node.outgoing) {
      const target = proc.nodes[proc.flows[f].target];
      const spec = x.triggerWait(target, "gateway", () => x.context(token));
      if (spec) x.arm(token, spec);
    }
  },
  trigger(x, token, wait, message) {
    const proc = x.processOf(token);
    const node = proc.nodes[token.node];
    x.resolveOwn(token);
    const flow = node.outgoing.find((f) => proc.flows[f].target === wait.node)!;
    x.complete(token, undefined, { flows: [flow] });
    x.bindMessage(token, proc.nodes[wait.node], message);
    // The event was triggered already: it completes instead of waiting.
    token.state = "triggered";
  },
};
