/**
 * End events, by result:
 *
 * - none: the token ends; the scope completes when nothing else is in it.
 * - terminate: every token of the scope ends now; the scope completes
 *   normally (at the process level the instance is COMPLETED).
 * - message: the message goes out (`q:send`, or the reply through `q:reply`).
 * - signal: broadcast inside the instance and to other instances.
 * - error: thrown to the nearest matching boundary or event sub-process;
 *   uncaught, the instance fails.
 * - escalation: thrown likewise; uncaught it is only reported.
 * - compensate: completed activities are compensated before the token ends.
 * - cancel: the enclosing transaction is rolled back and compensated, and
 *   the flow continues at its cancel boundary.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { emitMessage } from "./_messages.ts";

/** End events of every result type. */
export const endEvent: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const trigger = node.trigger;
    switch (trigger?.type) {
      case "terminate":
        x.terminateScope(token);
        return;
      case "error":
        x.throwError(token, trigger.errorCode ?? "", `error end event '${node.id}'`);
        return;
      case "escalation":
        x.escalate(token, trigger.escalationCode);
        if (x.state.tokens.has(token.id)) x.consume(token);
        return;
      case "signal": {
        const body = x.body(token);
        const go = (payload: Awaited<typeof body>) => {
          x.signal(trigger.signal ?? node.id, payload);
          if (x.state.tokens.has(token.id)) x.consume(token);
        };
        return body instanceof Promise ? body.then(go) : go(body);
      }
      case "compensate":
        x.compensate(token, trigger.compensate, true);
        return;
      case "cancel":
        x.cancelTransaction(token);
        return;
      case "message":
        return emitMessage(x, token);
      default:
        if (!node.reply) {
          x.complete(token);
          return;
        }
        return emitMessage(x, token);
    }
  },
};
