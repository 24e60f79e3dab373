/**
 * Intermediate catch events. A link catch is where a link throw continues,
 * so the token passes straight through. Message, timer and signal catches
 * park the token on a wait; the runtime (or a signal thrown in the
 * instance) triggers it. A conditional catch passes when its condition
 * already holds and otherwise waits until it does — conditions are checked
 * again whenever a step's agenda drains.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { completeWithMessage } from "./_relay.ts";

/** Intermediate catch events of every trigger type. */
export const intermediateCatchEvent: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const trigger = node.trigger;
    if (trigger?.type === "link" || trigger === undefined || trigger.type === "none") {
      x.complete(token);
      return;
    }
    if (trigger.type === "conditional" && x.test(trigger.condition!, token)) {
      x.complete(token);
      return;
    }
    const spec = x.triggerWait(node, "catch", () => x.context(token));
    if (spec) x.arm(token, spec);
    x.park(token, "waiting");
  },
  trigger(x, token, _wait, message) {
    completeWithMessage(x, token, message);
  },
};
