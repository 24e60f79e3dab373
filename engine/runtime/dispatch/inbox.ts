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

/** Marks the id of a capture made from a message its transport gave an idempotency key. */
const KEYED = "@";

/**
 * The id a message is captured under: its transport's idempotency key when
 * it has one (so a copy the broker redelivers finds the first, and a
 * redriven capture keeps the key its dedup needs), else a fresh id. No
 * dedup row's id starts with `@` (those start with a process id or `=`).
 */
export function captureId(delivery: InboundDelivery): string {
  return delivery.idempotencyKey === undefined ? newId() : `${KEYED}${delivery.idempotencyKey}`;
}

/** The idempotency key a capture id carries, if any. */
export function keyOfCapture(eventId: string): string | undefined {
  return eventId.startsWith(KEYED) ? eventId.slice(KEYED.length) : undefined;
}

/**
 * Stores a message as pending; it is acknowledged once this resolves.
 * Answers false when a copy is captured already: still pending (its run is
 * due) or run into an instance. A copy whose capture was settled without
 * an instance (refused) is captured again, as a new message would be.
 */
export async function storeCapture(db: Queryable, c: Capture): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into inbox (tenant, channel, event_id, state, body, content_type, headers)
     values ($1, $2, $3, 'pending', $4, $5, $6)
     on conflict (tenant, channel, event_id) do update
       set state = 'pending', body = excluded.body, content_type = excluded.content_type,
           headers = excluded.headers, attempts = 0, received_at = now()
       where inbox.state = 'done' and inbox.instance_id is null`,
    [
      c.tenant,
      c.delivery.channel,
      c.eventId,
      c.delivery.body,
      c.delivery.contentType ?? null,
      c.delivery.headers,
    ],
  );
  return rowCount === 1;
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
