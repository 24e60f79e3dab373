/**
 * Receive task: parks the instance until a message arrives on the task's
 * `q:source` channel (correlated by the runtime through `q:alias`), binds
 * the payload and moves on. Behind an event-based gateway it takes part in
 * the race like a message catch event.
 *
 * @module
 */
import type { Behavior } from "../behavior.ts";
import { relayWait } from "./_relay.ts";

/** Receive tasks. */
export const receiveTask: Behavior = relayWait;
