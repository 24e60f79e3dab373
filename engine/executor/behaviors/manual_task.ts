/**
 * Manual task: work done outside the engine with nothing to wait for, so it
 * runs like a plain task — its data associations, then onward.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { assignInputs } from "./task.ts";

/** Manual tasks. */
export const manualTask: Behavior = {
  activate(x, token) {
    return assignInputs(x, token);
  },
};
