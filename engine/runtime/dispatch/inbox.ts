/**
 * The inbox: on-persist messages captured before they run (so an
 * acknowledged message survives a crash), and the rows that mark them done
 * in the same transaction as the step they started or resumed.
 *
 * @module
 */
import type { InboundDelivery } from "../../core/transport.ts";
import type { Queryable } from "../../persistence/mod.ts";

/** A captured message. */
export interface Capture {
  readonly tenant: string;
  readonly eventId: string;
  readonly delivery: InboundDelivery;
}

/** Stores a message as pending; it is acknowledged once this resolves. */
export async function storeCapture(db: Queryable, c: Capture): Promise<void> {
  await db.query(
    `insert into inbox (tenant, channel, event_id, state, body, content_type, headers)
     values ($1, $2, $3, 'pending', $4, $5, $6)`,
    [
      c.tenant,
      c.delivery.channel,
      c.eventId,
      c.delivery.body,
      c.delivery.contentType ?? null,
      c.delivery.headers,
    ],
  );
}

/** Marks a captured message done (inside the step's transaction). */
export async function markCaptured(
  tx: Queryable,
  m: { tenant: string; channel: string; eventId: string; instanceId: string },
): Promise<void> {
  await tx.query(
    `update inbox set state = 'done', instance_id = $4, body = null, headers = null
      where tenant = $1 and channel = $2 and event_id = $3`,
    [m.tenant, m.channel, m.eventId, m.instanceId],
  );
}

/** Marks a captured message done if it still is pending (refused, or a duplicate of an earlier one). */
export async function dropCaptured(
  db: Queryable,
  m: { tenant: string; channel: string; eventId: string },
): Promise<void> {
  await db.query(
    `update inbox set state = 'done', body = null, headers = null
      where tenant = $1 and channel = $2 and event_id = $3 and state = 'pending'`,
    [m.tenant, m.channel, m.eventId],
  );
}
