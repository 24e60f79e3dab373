/**
 * The inbox: on-persist messages captured before they run (so an
 * acknowledged message survives a crash), and the rows that mark them done
 * in the same transaction as the step they started or resumed.
 *
 * @module
 */
import type { InboundDelivery } from "../../core/transport.ts";
import { newId } from "../../core/ids.ts";
import type { Database, Queryable } from "../../persistence/mod.ts";

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

/** The incident a consumed execution failure leaves behind. */
export interface FailureIncident {
  readonly instanceId?: string;
  readonly deploymentId: string;
  readonly code: string;
  readonly detail: string;
}

/**
 * Consumes a captured message whose run failed: it is marked done so it is
 * never redriven, and the failure is recorded as an incident — both or
 * neither, so a crash between them cannot lose the record.
 */
export async function consumeFailedCapture(
  db: Database,
  m: { tenant: string; channel: string; eventId: string },
  incident: FailureIncident,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into incidents (tenant, incident_id, instance_id, deployment_id, code, detail)
       values ($1, $2, $3, $4, $5, $6)`,
      [
        m.tenant,
        newId(),
        incident.instanceId ?? null,
        incident.deploymentId,
        incident.code,
        incident.detail,
      ],
    );
    await dropCaptured(tx, m);
  });
}
