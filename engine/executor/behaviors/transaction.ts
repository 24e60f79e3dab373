/**
 * Transaction sub-process: a sub-process whose data-store writes are held
 * back until it ends. A normal end commits them together (to the enclosing
 * transaction, or with the step). A cancel end event inside it rolls them
 * back instead, compensates the activities completed inside it (newest
 * first) and continues at the cancel boundary. An error caught by a
 * boundary on it (a hazard) drops the writes without compensating.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { closeBody, openBody } from "./_body.ts";

/** Transaction sub-processes. */
export const transaction: Behavior = {
  activate(x, token) {
    openBody(x, token, "transaction");
  },
  childDone(x, token, child) {
    x.commit(child);
    closeBody(x, token, child);
  },
};
