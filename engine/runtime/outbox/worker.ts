/**
 * The outbox worker: claims due rows in batches (`FOR UPDATE SKIP LOCKED`,
 * so replicas share the table without double sends), hands each to the sink
 * registered for its destination's scheme, and records the result — deleted
 * when delivered, rescheduled with exponential backoff on a transient
 * failure, poisoned (with an incident) when it can never succeed or the
 * attempt ceiling is reached. A claim carries an expiry, so rows claimed by
 * a replica that died mid-send are picked up again once it passes; the
 * receiver sees the same idempotency key on every attempt.
 *
 * A parking sink (the `pull` transport) dials nothing: it moves the
 * delivery into another table, in the same transaction that deletes the
 * outbox row, so the delivery is owned by exactly one row at every instant.
 * Only such a sink sees the reserved `sutra-park-*` headers, stamped here
 * from the row's own deployment and instance; every other sink gets the
 * headers with any copies of them removed.
 *
 * A sink may also answer later (`deferred`: a `local` hand-off to an
 * on-complete channel is acknowledged once the receiving instance ends).
 * The row then stays claimed for the sink's hold window and is settled
 * when the answer comes, without holding up the rest of the batch; a
 * stopping worker gives such rows back, so a restarted or other replica
 * delivers them again (inbox dedup answers the copy).
 *
 * With telemetry, each attempt is a `sutra.outbox.send` span, a child of
 * the step that committed the row (its `traceparent` header, stamped at
 * commit), and the sink gets this span as the message's `traceparent`, so
 * the receiver's trace continues the sender's.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import type { Registry } from "../../core/registry.ts";
import {
  destinationScheme,
  isReservedParkHeader,
  type OutboundMessage,
  PARK_DEPLOYMENT_HEADER,
  PARK_INSTANCE_HEADER,
  type ParkingSink,
  type Sink,
  type SinkResult,
  type SinkSettlement,
} from "../../core/transport.ts";
import type { Database } from "../../persistence/mod.ts";
import { PollLoop } from "../poll_loop.ts";
import { outboxBellOf } from "./bell.ts";
import type { PoisonedDelivery } from "../timers/mod.ts";
import { errorMessage } from "../../core/errors.ts";
import { SpanKind } from "@opentelemetry/api";
import { telemetryOf } from "../telemetry/telemetry.ts";
import { traceOutbound } from "../telemetry/outbound.ts";

/** Options for {@link OutboxWorker}. */
export interface OutboxWorkerOptions {
  readonly db: Database;
  readonly sinks: Registry<Sink>;
  readonly logger: Logger;
  /** Claim owner id (the replica). */
  readonly owner: string;
  /** `sutra.outbox.retry.max-attempts`; unset retries forever. */
  readonly maxAttempts?: number;
  /** Idle poll interval, milliseconds. */
  readonly pollMs: number;
  /** Rows per claim. */
  readonly batchSize?: number;
  /** How long a claim protects a row being sent, milliseconds. */
  readonly claimMs?: number;
  /** Told after a row is poisoned, so the instance waiting on it can react. */
  readonly onPoisoned?: (delivery: PoisonedDelivery) => void;
}

interface Row {
  tenant: string;
  outbox_id: string;
  instance_id: string | null;
  deployment_id: string | null;
  destination: string;
  headers: Record<string, string>;
  body: Uint8Array;
  content_type: string | null;
  idempotency_key: string;
  attempts: number;
  created_at: Date;
}

/** Backoff before attempt `attempts + 1`: 1s doubling, capped at five minutes. */
export function backoffMs(attempts: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 300_000);
}

// Thrown inside a park's transaction to roll it back when the claim was lost.
class ClaimLostError extends Error {}

/** The headers without the reserved park headers, whoever put them there. */
function withoutReserved(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !isReservedParkHeader(name)),
  );
}

/** Adds the attempt's trace parent to the headers a sink sends (identity without telemetry). */
type Stamp = (headers: Readonly<Record<string, string>>) => Readonly<Record<string, string>>;

function messageOf(row: Row, headers: Readonly<Record<string, string>>): OutboundMessage {
  return {
    destination: row.destination,
    headers,
    body: row.body,
    ...(row.content_type === null ? {} : { contentType: row.content_type }),
    idempotencyKey: row.idempotency_key,
    attempt: row.attempts,
  };
}

/** Sends outbox rows until stopped. */
export class OutboxWorker {
  readonly #o: OutboxWorkerOptions;
  readonly #loop: PollLoop;
  /** Rows whose sink answers later, by outbox id. */
  readonly #deferred = new Map<string, Row>();
  #stopped = false;
  #unlisten: (() => void) | undefined;

  constructor(options: OutboxWorkerOptions) {
    this.#o = options;
    this.#loop = new PollLoop({
      pass: async () => await this.drainOnce() > 0,
      intervalMs: options.pollMs,
      onError: (error) => options.logger.error("outbox poll failed", { error: String(error) }),
    });
  }

  get #claimMs(): number {
    return this.#o.claimMs ?? 60_000;
  }

  /** Claims and sends one batch; resolves to how many rows it handled. */
  async drainOnce(): Promise<number> {
    const { rows } = await this.#o.db.query<Row>(
      `update outbox set claimed_by = $1, claimed_until = now() + make_interval(secs => $2),
              attempts = attempts + 1
        where (tenant, outbox_id) in (
          select tenant, outbox_id from outbox
           where poisoned_at is null and next_attempt_at <= now()
             and (claimed_until is null or claimed_until < now())
           order by next_attempt_at limit $3
           for update skip locked)
        returning tenant, outbox_id, instance_id, deployment_id, destination, headers, body,
                  content_type, idempotency_key, attempts, created_at`,
      [this.#o.owner, this.#claimMs / 1000, this.#o.batchSize ?? 50],
    );
    await Promise.all(rows.map((row) => this.#send(row)));
    return rows.length;
  }

  /** One attempt, in its `sutra.outbox.send` span when traced. */
  #send(row: Row): Promise<void> {
    return traceOutbound(this.#o.db, {
      name: "sutra.outbox.send",
      kind: SpanKind.PRODUCER,
      headers: row.headers,
      attributes: {
        "sutra.outbox.destination": row.destination,
        "sutra.outbox.attempt": row.attempts,
        ...(row.instance_id === null ? {} : { "bpm.instance.id": row.instance_id }),
      },
    }, (stamp) => this.#attempt(row, stamp));
  }

  async #attempt(row: Row, stamp: Stamp): Promise<void> {
    const scheme = destinationScheme(row.destination);
    const sink = scheme === undefined ? undefined : this.#o.sinks.get(scheme);
    if (!sink) {
      await this.#record(row, {
        outcome: "retry",
        error:
          `SUTRA.OUTBOUND.SINK_UNKNOWN: no transport in this build delivers to '${row.destination}'`,
      });
      return;
    }
    if (sink.kind === "park") {
      const result = await this.#park(sink, row, stamp);
      if (result) await this.#record(row, result);
      return;
    }
    let result: SinkResult;
    try {
      result = await sink.send(messageOf(row, stamp(withoutReserved(row.headers))));
    } catch (error) {
      result = { outcome: "retry", error: errorMessage(error) };
    }
    if (result.outcome === "deferred") await this.#defer(row, result.settled, result.holdMs);
    else await this.#record(row, result);
  }

  /** Keeps the row claimed while its answer is pending, and records the answer when it comes. */
  async #defer(row: Row, settled: Promise<SinkSettlement>, holdMs: number): Promise<void> {
    await this.#o.db.query(
      `update outbox set claimed_until = now() + make_interval(secs => $4)
        where tenant = $1 and outbox_id = $2 and claimed_by = $3`,
      [row.tenant, row.outbox_id, this.#o.owner, (holdMs + this.#claimMs) / 1000],
    );
    this.#deferred.set(row.outbox_id, row);
    settled
      .then((result) => this.#stopped ? undefined : this.#record(row, result))
      .catch((error) =>
        this.#o.logger.error("recording a deferred delivery failed", {
          outboxId: row.outbox_id,
          error: errorMessage(error),
        })
      )
      .finally(() => this.#deferred.delete(row.outbox_id));
  }

  /**
   * Parks the row and deletes it in one transaction; resolves to a result
   * still to record, or undefined when the row is settled (parked, or
   * reclaimed by another replica after this claim expired, in which case the
   * park rolled back and that replica owns the delivery).
   */
  async #park(sink: ParkingSink, row: Row, stamp: Stamp): Promise<SinkSettlement | undefined> {
    const headers: Record<string, string> = { ...stamp(withoutReserved(row.headers)) };
    if (row.deployment_id !== null) headers[PARK_DEPLOYMENT_HEADER] = row.deployment_id;
    if (row.instance_id !== null) headers[PARK_INSTANCE_HEADER] = row.instance_id;
    try {
      return await this.#o.db.transaction(async (tx) => {
        const result = await sink.park(messageOf(row, headers), tx);
        if (result.outcome !== "delivered") return result;
        const { rowCount } = await tx.query(
          "delete from outbox where tenant = $1 and outbox_id = $2 and claimed_by = $3",
          [row.tenant, row.outbox_id, this.#o.owner],
        );
        if (rowCount === 0) throw new ClaimLostError();
        return undefined;
      }).then((left) => {
        if (left === undefined) this.#measure(row, "delivered");
        return left;
      });
    } catch (error) {
      if (error instanceof ClaimLostError) return undefined;
      return { outcome: "retry", error: errorMessage(error) };
    }
  }

  /** The attempt meters: its outcome, and for a delivery the time since the row's commit. */
  #measure(row: Row, outcome: string): void {
    const meters = telemetryOf(this.#o.db)?.meters;
    if (!meters) return;
    const scheme = destinationScheme(row.destination) ?? "unknown";
    meters.outboxAttempts.add(1, { scheme, outcome });
    if (outcome === "delivered") {
      meters.outboxDeliveryLag.record(Date.now() - new Date(row.created_at).getTime(), { scheme });
    }
  }

  async #record(row: Row, result: SinkSettlement): Promise<void> {
    const db = this.#o.db;
    this.#measure(row, result.outcome);
    if (result.outcome === "delivered") {
      await db.query(
        "delete from outbox where tenant = $1 and outbox_id = $2 and claimed_by = $3",
        [
          row.tenant,
          row.outbox_id,
          this.#o.owner,
        ],
      );
      return;
    }
    if (result.outcome === "retry" && result.uncounted) {
      // Nothing failed: the attempt is given back and the row is due again at once.
      await db.query(
        `update outbox set claimed_by = null, claimed_until = null, last_error = $4,
                attempts = attempts - 1, next_attempt_at = now()
          where tenant = $1 and outbox_id = $2 and claimed_by = $3`,
        [row.tenant, row.outbox_id, this.#o.owner, result.error],
      );
      return;
    }
    const exhausted = this.#o.maxAttempts !== undefined && row.attempts >= this.#o.maxAttempts;
    if (result.outcome === "retry" && !exhausted) {
      await db.query(
        `update outbox set claimed_by = null, claimed_until = null, last_error = $3,
                next_attempt_at = now() + make_interval(secs => $4)
          where tenant = $1 and outbox_id = $2 and claimed_by = $5`,
        [row.tenant, row.outbox_id, result.error, backoffMs(row.attempts) / 1000, this.#o.owner],
      );
      return;
    }
    const code = result.outcome === "poison"
      ? "SUTRA.OUTBOUND.DELIVERY_REFUSED"
      : "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED";
    // A row another replica has claimed since (this answer came after the claim expired) is theirs.
    const ours = await db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `update outbox set claimed_by = null, claimed_until = null, last_error = $3, poisoned_at = now()
          where tenant = $1 and outbox_id = $2 and claimed_by = $4`,
        [row.tenant, row.outbox_id, `${code}: ${result.error}`, this.#o.owner],
      );
      if (rowCount === 0) return false;
      await tx.query(
        `insert into incidents (tenant, incident_id, instance_id, deployment_id, code, detail)
         values ($1, $2, $3, $4, $5, $6)`,
        [row.tenant, newId(), row.instance_id, row.deployment_id, code, result.error],
      );
      return true;
    });
    if (!ours) return;
    this.#o.onPoisoned?.({
      tenant: row.tenant,
      outboxId: row.outbox_id,
      instanceId: row.instance_id,
      deploymentId: row.deployment_id,
      idempotencyKey: row.idempotency_key,
      code,
      error: result.error,
    });
    this.#o.logger.warn(
      `outbox delivery to ${row.destination} poisoned after ${row.attempts} attempt(s)`,
      {
        code,
        outboxId: row.outbox_id,
        error: result.error,
      },
    );
  }

  /** Starts polling; a commit on this database that writes outbox rows wakes it at once. */
  start(): void {
    this.#unlisten = outboxBellOf(this.#o.db).listen(() => this.#loop.wake());
    this.#loop.start();
  }

  /** Stops polling, waits for the batch in flight and gives back the rows still waiting for an answer. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    await this.#loop.stop();
    const ids = [...this.#deferred.keys()];
    if (ids.length === 0) return;
    await this.#o.db.query(
      `update outbox set claimed_by = null, claimed_until = null, attempts = attempts - 1
        where claimed_by = $1 and outbox_id = any($2::text[])`,
      [this.#o.owner, ids],
    );
  }
}
