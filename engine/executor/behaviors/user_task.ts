/**
 * User task: the human-facing name for the same wait a receive task is.
 * The engine keeps no assignee or form model; the decision comes back as a
 * relayed message on the task's `q:source` channel, which binds its payload
 * and completes the task.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { relayWait } from "./_relay.ts";

/** User tasks. */
export const userTask: Behavior = relayWait;
