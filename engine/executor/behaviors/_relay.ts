/**
 * The wait state shared by receive and user tasks: park on a message wait
 * for the node's `q:source` channel; the relayed message binds its payload
 * (to the source's `name`, default `payload`) and the task completes.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";

/** Waits for one relayed message. */
export const relayWait: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    x.arm(token, x.triggerWait(node, "catch", () => x.context(token))!);
    x.park(token, "waiting");
  },
  trigger(x, token, _wait, message) {
    x.bindMessage(token, x.nodeOf(token), message);
    x.complete(token);
  },
};
