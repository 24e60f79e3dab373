/**
 * The pull sink: instead of dialing anything it parks the delivery as an
 * external task, inside the outbox worker's transaction, and answers
 * delivered, so the outbox row and the task row trade ownership
 * atomically. The owning deployment and instance arrive in the two
 * reserved headers the outbox worker stamps for parking sinks; they are
 * removed here, so no worker ever sees them.
 *
 * @module
 */
import { newId } from "../../../engine/core/ids.ts";
import {
  isReservedParkHeader,
  type OutboundMessage,
  PARK_DEPLOYMENT_HEADER,
  PARK_INSTANCE_HEADER,
  type ParkingSink,
  type SinkSettlement,
  type SinkTransaction,
} from "../../../engine/core/transport.ts";
import { parkTask } from "../../../engine/runtime/external_tasks/mod.ts";

/** The sink for `pull://…` destinations. */
export const pullSink: ParkingSink = {
  name: "pull",
  kind: "park",
  async park(message: OutboundMessage, tx: SinkTransaction): Promise<SinkSettlement> {
    const deploymentId = message.headers[PARK_DEPLOYMENT_HEADER];
    if (!deploymentId) {
      return {
        outcome: "poison",
        error:
          `SUTRA.EXTERNAL_TASK.PARK_UNATTRIBUTED: the delivery to '${message.destination}' names no owning deployment`,
      };
    }
    const instanceId = message.headers[PARK_INSTANCE_HEADER];
    await parkTask(tx, {
      taskId: newId(),
      deploymentId,
      destination: message.destination,
      ...(instanceId ? { instanceId } : {}),
      headers: Object.fromEntries(
        Object.entries(message.headers).filter(([name]) => !isReservedParkHeader(name)),
      ),
      body: message.body,
      ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
      idempotencyKey: message.idempotencyKey,
    });
    return { outcome: "delivered" };
  },
};
