/**
 * Start events. Whatever started the scope — a routed message, a timer
 * schedule, a signal, the enclosing sub-process, an event sub-process
 * trigger — has already happened (and bound its payload) when the token
 * arrives, so a start event simply completes: its aliases are recorded and
 * the token leaves by its outgoing flows.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";

/** Start events of processes, sub-processes and event sub-processes. */
export const startEvent: Behavior = {
  activate(x, token) {
    x.complete(token);
  },
};
