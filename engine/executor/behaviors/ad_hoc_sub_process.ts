/**
 * Ad-hoc sub-process: every activity of the body without incoming flows is
 * started at once, each runs with whatever flows it has, and the
 * sub-process completes when all of them are done.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { closeBody, openBody } from "./_body.ts";

/** Ad-hoc sub-processes. */
export const adHocSubProcess: Behavior = {
  activate(x, token) {
    openBody(x, token, "adHocSubProcess");
  },
  childDone(x, token, child) {
    closeBody(x, token, child);
  },
};
