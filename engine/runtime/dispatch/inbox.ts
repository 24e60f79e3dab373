/**
 * The inbox: on-persist messages captured before they run (so an
 * acknowledged message survives a crash), and the rows that mark them done
 * in the same transaction as the step they started or resumed.
 *
 * @module
 */
import type { InboundDelivery, ReplyRoute } from "../../core/transport.ts";
import { newId } from "../../core/ids.ts";
import { type Database, type Queryable, valuesList } from "../../persistence/mod.ts";
import { inOrder } from "../instances/repository.ts";

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

/** The columns a capture keeps its message in, as an insert lists them. */
const CAPTURE_COLUMNS = "tenant, channel, event_id, state, body, content_type, headers, reply_to";

/**
 * Stores messages as pending, in one statement; each is acknowledged once
 * this resolves. Answers the ones stored: a message is not when a copy is
 * captured already, still pending (its run is due) or run into an
 * instance, nor when an earlier message of the same call is that copy. A
 * copy whose capture was settled without an instance (refused) is captured
 * again, as a new message would be.
 */
export async function storeCaptures(
  db: Queryable,
  captures: readonly Capture[],
): Promise<Set<Capture>> {
  // One statement may not update a row twice: a twin within the call waits its turn as a copy.
  const firsts = new Map<string, Capture>();
  for (const c of captures) {
    const key = rowKey(c);
    if (!firsts.has(key)) firsts.set(key, c);
  }
  const params: unknown[] = [];
  const rows = [...firsts.values()].map((c) => [
    c.tenant,
    c.delivery.channel,
    c.eventId,
    "pending",
    c.delivery.body,
    c.delivery.contentType ?? null,
    c.delivery.headers,
    c.delivery.replyTo ?? null,
  ]);
  const { rows: stored } = await db.query<{ tenant: string; channel: string; event_id: string }>(
    `insert into inbox (${CAPTURE_COLUMNS})
     values ${valuesList(params, rows)}
     on conflict (tenant, channel, event_id) do update
       set state = 'pending', body = excluded.body, content_type = excluded.content_type,
           headers = excluded.headers, reply_to = excluded.reply_to, attempts = 0,
           received_at = now()
       where inbox.state = 'done' and inbox.instance_id is null
     returning tenant, channel, event_id`,
    params,
  );
  return new Set(
    stored.map((r) =>
      firsts.get(rowKey({ tenant: r.tenant, channel: r.channel, eventId: r.event_id }))!
    ),
  );
}

/** A capture row's key as one string. */
function rowKey(c: Capture | { tenant: string; channel: string; eventId: string }): string {
  const channel = "delivery" in c ? c.delivery.channel : c.channel;
  return `${c.tenant}\u0000${channel}\u0000${c.eventId}`;
}

/**
 * The reply route a capture was stored with, for a capture taken up again
 * without it (redriven after its replica died).
 */
export async function storedReplyRoute(
  db: Queryable,
  m: { tenant: string; channel: string; eventId: string },
): Promise<ReplyRoute | undefined> {
  const { rows } = await db.query<{ reply_to: ReplyRoute | null }>(
    "select reply_to from inbox where tenant = $1 and channel = $2 and event_id = $3",
    [m.tenant, m.channel, m.eventId],
  );
  return rows[0]?.reply_to ?? undefined;
}

/** A captured message a step consumed, and the instance it ran into. */
export interface CapturedMark {
  readonly tenant: string;
  readonly channel: string;
  readonly eventId: string;
  readonly instanceId: string;
}

// The ids as a list lead the key (version 8), so the plan probes the key even before the
// table was first analyzed.
const MARK_CAPTURED = `update inbox as b set state = 'done', instance_id = v.instance_id,
    body = null, headers = null, reply_to = null
  from unnest($3::text[], $4::text[]) as v (event_id, instance_id)
  where b.event_id = any($3::text[]) and b.channel = $2 and b.tenant = $1
    and b.event_id = v.event_id`;

/**
 * Marks captured messages done (inside the steps' transaction): one
 * statement per tenant and channel, whatever the number of messages.
 */
export async function markCaptured(tx: Queryable, marks: readonly CapturedMark[]): Promise<void> {
  const scopes = Map.groupBy(marks, (m) => `${m.tenant}\u0000${m.channel}`);
  await inOrder([...scopes.values()].map((own) =>
    tx.query(MARK_CAPTURED, [
      own[0].tenant,
      own[0].channel,
      own.map((m) => m.eventId),
      own.map((m) => m.instanceId),
    ])
  ));
}

/** Marks a captured message done if it still is pending (refused, or a duplicate of an earlier one). */
export async function dropCaptured(
  db: Queryable,
  m: { tenant: string; channel: string; eventId: string },
): Promise<void> {
  await db.query(
    `update inbox set state = 'done', body = null, headers = null, reply_to = null
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
