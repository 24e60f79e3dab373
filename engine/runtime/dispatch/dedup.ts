/**
 * `dedupKey` on a `q:source`: a redelivered message (same tenant, channel
 * and key) is recognised and answered with the instance the first delivery
 * started or resumed, instead of running again. The key is recorded in the
 * inbox in the same transaction as the step it led to.
 *
 * A delivery may also carry the sender's own idempotency key (an external
 * task's completion re-enters under the key of the delivery that parked
 * it). That key wins over the route's `dedupKey`, and for a relay it is
 * checked before correlation ({@link explicitRelayKey}): once the first copy
 * has advanced the instance past its wait, the alias a duplicate would
 * correlate on may be gone, and the duplicate must still be recognised.
 *
 * @module
 */
import { formatFeel } from "../../../lang/feel/mod.ts";
import type { InboundMessage } from "../../executor/mod.ts";
import { type Queryable, type Transaction, valuesList } from "../../persistence/mod.ts";
import type { Route } from "./channels.ts";
import { surfaceStatus } from "../instances/repository.ts";

/** A delivery's dedup identity. */
export interface DedupKey {
  readonly tenant: string;
  readonly channel: string;
  /** `<process>:<key value>`, so a broadcast's subscribers deduplicate separately. */
  readonly eventId: string;
}

/** Thrown in a commit when a concurrent twin recorded the same key first. */
export class DuplicateDeliveryError extends Error {
  constructor(readonly key: DedupKey) {
    super(`message ${key.eventId} on channel ${key.channel} was already processed`);
    this.name = "DuplicateDeliveryError";
  }
}

/** The identity of a relay delivery that carries its own idempotency key. */
export function explicitRelayKey(
  scope: { tenant: string; channel: string },
  idempotencyKey: string,
): DedupKey {
  // One instance consumes a relay, so the key needs no process qualifier.
  return { ...scope, eventId: `=${idempotencyKey}` };
}

/**
 * The dedup key for a message: the delivery's own idempotency key when it
 * has one, else the route's `dedupKey`; undefined when neither applies.
 */
export function dedupKeyOf(
  route: Route,
  message: InboundMessage,
  scope: { tenant: string; channel: string },
  idempotencyKey?: string,
): DedupKey | undefined {
  if (idempotencyKey !== undefined) {
    return route.subscription.role === "relay"
      ? explicitRelayKey(scope, idempotencyKey)
      : { ...scope, eventId: `${route.subscription.process}=${idempotencyKey}` };
  }
  const expression = route.subscription.dedupKey;
  if (!expression) return undefined;
  const r = expression.compiled.evaluate({
    [route.subscription.variable]: message.payload,
    header: message.headers ?? {},
  });
  if (r.diagnostics !== undefined || r.value === null) return undefined;
  const value = typeof r.value === "string" ? r.value : formatFeel(r.value);
  return { ...scope, eventId: `${route.subscription.process}:${value}` };
}

/** The instance an earlier delivery with this key led to, if any. */
export async function earlierDelivery(
  db: Queryable,
  key: DedupKey,
): Promise<{ instanceId: string; status: string } | undefined> {
  const { rows } = await db.query<
    { instance_id: string; status: string | null; owner: string | null }
  >(
    `select b.instance_id, i.status, i.owner from inbox b
       left join instances i on i.tenant = b.tenant and i.instance_id = b.instance_id
      where b.tenant = $1 and b.channel = $2 and b.event_id = $3 and b.instance_id is not null`,
    [key.tenant, key.channel, key.eventId],
  );
  const row = rows[0];
  if (!row) return undefined;
  // Answered in the words the first delivery was answered in, not the column's.
  const status = row.status === null
    ? "PURGED"
    : surfaceStatus({ status: row.status, owner: row.owner });
  return { instanceId: row.instance_id, status };
}

/** A dedup key recorded with the step that ran the message into its instance. */
export interface DeliveryRecord {
  readonly key: DedupKey;
  readonly instanceId: string;
}

/**
 * Records the keys with their steps, in one statement; throws
 * {@link DuplicateDeliveryError} naming the first key a twin won (another
 * delivery's, or an earlier record of the same call).
 */
export async function recordDeliveries(
  tx: Transaction,
  records: readonly DeliveryRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const params: unknown[] = [];
  const rows = records.map((r) => [r.key.tenant, r.key.channel, r.key.eventId, r.instanceId]);
  // The primary key is the table's only unique constraint, so a skipped row
  // is exactly a twin's key; no savepoint round trips are needed to name it.
  const { rows: written } = await tx.query<{ tenant: string; channel: string; event_id: string }>(
    `insert into inbox (tenant, channel, event_id, instance_id, state)
     select tenant, channel, event_id, instance_id, 'done'
       from (values ${valuesList(params, rows)}) as v (tenant, channel, event_id, instance_id)
     on conflict do nothing
     returning tenant, channel, event_id`,
    params,
  );
  if (written.length === records.length) return;
  const keyOf = (tenant: string, channel: string, eventId: string) =>
    [tenant, channel, eventId].join("\u0000");
  const kept = new Set(written.map((r) => keyOf(r.tenant, r.channel, r.event_id)));
  for (const r of records) {
    if (!kept.delete(keyOf(r.key.tenant, r.key.channel, r.key.eventId))) {
      throw new DuplicateDeliveryError(r.key);
    }
  }
}
