/**
 * engine/runtime/external_tasks: the pull worker surface.
 *
 * @module
 */
import type { RuntimeContext, RuntimeService } from "../services.ts";

/** Mounts the external-task routes. */
export function startExternalTasks(_ctx: RuntimeContext): Promise<RuntimeService> {
  return Promise.resolve({ stop: () => Promise.resolve() });
}
