/**
 * Send task: emits its message through `q:send` (channel or destination,
 * FEEL headers, the data inputs as body, an idempotency key per attempt)
 * and moves on; it does not wait for an answer.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { emitMessage } from "./_messages.ts";

/** Send tasks. */
export const sendTask: Behavior = {
  activate(x, token) {
    return emitMessage(x, token);
  },
};
