/**
 * engine/runtime/external_tasks: the pull worker surface. Deliveries on
 * `pull` channels are parked as `external_tasks` rows by the pull sink (on
 * the outbox worker's transaction); this service serves the worker routes
 * and keeps the long polls' doorbell, fed by PostgreSQL LISTEN/NOTIFY so a
 * park on any replica wakes a fetch waiting on this one.
 *
 * @module
 */
import { PAYLOAD_CAP_BYTES } from "../../intake/mod.ts";
import type { RuntimeContext, RuntimeService } from "../services.ts";
import { Doorbell } from "./doorbell.ts";
import { addExternalTaskRoutes } from "./routes.ts";
import { externalTaskSettings } from "./settings.ts";
import { TASK_PARKED_CHANNEL } from "./store.ts";

export { type ExternalTaskSettings, externalTaskSettings } from "./settings.ts";
export { type ParkedDelivery, parkTask, TASK_PARKED_CHANNEL } from "./store.ts";

/**
 * Checks the settings (a zero or over-ceiling default lock refuses to
 * boot), subscribes to parks and mounts the external-task routes.
 */
export async function startExternalTasks(ctx: RuntimeContext): Promise<RuntimeService> {
  const settings = externalTaskSettings(ctx.config);
  const doorbell = new Doorbell();
  const unlisten = await ctx.db.listen(
    TASK_PARKED_CHANNEL,
    (destination) => doorbell.ring(destination),
  );
  const stopping = new AbortController();
  addExternalTaskRoutes(ctx.router, {
    db: ctx.db,
    registry: ctx.deployments.registry,
    deliver: (delivery) => ctx.dispatcher.deliver(delivery),
    settings,
    doorbell,
    logger: ctx.logger.child("external-tasks"),
    payloadCapBytes: ctx.config.require(PAYLOAD_CAP_BYTES),
    stopping: stopping.signal,
    resolveSecret: ctx.resolveSecret,
  });
  return {
    stop: async () => {
      stopping.abort();
      await unlisten();
    },
  };
}
