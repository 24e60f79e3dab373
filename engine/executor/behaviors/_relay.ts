/**
 * The wait state shared by receive and user tasks: park on a message wait
 * for the node's `q:source` channel; the relayed message binds its payload
 * (to the source's `name`, default `payload`) and the task completes.
 *
 * @module
 */
import type { InboundMessage } from "../input.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { Token } from "../state.ts";

/** Waits for one relayed message. */
export const relayWait: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    x.arm(token, x.triggerWait(node, "catch", () => x.context(token))!);
    x.park(token, "waiting");
  },
  trigger(x, token, _wait, message) {
    completeWithMessage(x, token, message);
  },
};

/**
 * Binds the message that completes a waiting node, then completes it; its
 * output associations see the payload as `result` (and as its data output).
 */
export function completeWithMessage(
  x: Execution,
  token: Token,
  message: InboundMessage | undefined,
): void {
  const payload = x.bindMessage(token, x.nodeOf(token), message);
  x.complete(
    token,
    undefined,
    payload === undefined ? undefined : {
      overlay: new Map([["result", payload]]),
    },
  );
}
