/**
 * Intermediate throw events, by result: none passes through; a link throw
 * continues at the link catch of the same name; a message throw emits
 * (`q:send`); a signal is broadcast; an escalation is thrown and the flow
 * continues unless an interrupting handler took it away; a compensation
 * throw compensates completed activities (one, or all of the scope, newest
 * first) and continues when the handlers are done.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { emitMessage } from "./_messages.ts";

/** Intermediate throw events of every result type. */
export const intermediateThrowEvent: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const trigger = node.trigger;
    switch (trigger?.type) {
      case "link":
        x.jump(token, trigger.linkTarget!);
        return;
      case "message":
        return emitMessage(x, token);
      case "signal": {
        const body = x.body(token);
        const go = (payload: Awaited<typeof body>) => {
          x.signal(trigger.signal ?? node.id, payload);
          if (x.state.tokens.has(token.id)) x.complete(token);
        };
        return body instanceof Promise ? body.then(go) : go(body);
      }
      case "escalation":
        x.escalate(token, trigger.escalationCode);
        if (x.state.tokens.has(token.id)) x.complete(token);
        return;
      case "compensate":
        x.compensate(token, trigger.compensate, false);
        return;
      default:
        x.complete(token);
    }
  },
};
