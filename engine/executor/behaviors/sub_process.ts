/**
 * Embedded sub-process: its body runs as a child scope instance (own
 * variables, own event sub-processes) while the token waits at the
 * sub-process node, where its boundary events are armed. When the body has
 * no tokens left the sub-process completes; what completed inside it stays
 * compensable as a unit.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { closeBody, openBody } from "./_body.ts";

/** Embedded sub-processes. */
export const subProcess: Behavior = {
  activate(x, token) {
    openBody(x, token, "subProcess");
  },
  childDone(x, token, child) {
    closeBody(x, token, child);
  },
};
