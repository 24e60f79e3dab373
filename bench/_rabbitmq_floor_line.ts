/**
 * The floor of an on-persist message on RabbitMQ: the least database work
 * the book's on-persist contract asks of any engine, with no engine at all.
 * Each message is captured durably before it is acknowledged, and marked
 * done in a later transaction once "its process ran" — two commits per
 * message, each shared by every message waiting for it (group commit on two
 * lines, one connection each, as the engine does), through the engine's own
 * driver on the same server and the same queue shape as the engine line.
 *
 * The raw amqplib loop acknowledges with no database at all; this line says
 * how much of that rate any durable on-persist consumer can keep on this
 * machine, so an engine line is read against both.
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { type Database, openDatabase } from "../engine/persistence/mod.ts";
import { cpuMeter, type CpuUse, dropSchema, freshSchema } from "./_support.ts";

/** Most messages one shared transaction takes (the engine's group limit). */
const MAX_GROUP = 64;

/** Options of {@link rabbitmqFloorLine}. */
export interface RabbitmqFloorOptions {
  readonly brokerUrl: string;
  /** The preloaded queue to drain; it holds `messages` messages. */
  readonly queue: string;
  readonly messages: number;
  readonly prefetch: number;
  /** The PostgreSQL server the captures go to (a fresh schema, dropped after). */
  readonly database: string;
}

/** Drains `queue` at the floor; messages per second, first delivery to last done. */
export async function rabbitmqFloorLine(
  o: RabbitmqFloorOptions,
): Promise<{ rate: number; cpu: CpuUse }> {
  const schema = freshSchema();
  const db = await openDatabase(o.database, { schema });
  const connection = await amqp.connect(o.brokerUrl);
  try {
    await db.exec(
      `create table floor_inbox (id text primary key, state text not null, body jsonb,
         headers jsonb, received_at timestamptz not null default now())`,
    );
    const channel = await connection.createChannel();
    await channel.prefetch(o.prefetch);
    const meter = cpuMeter();
    let first = 0;
    let done = 0;
    const finished = Promise.withResolvers<number>();
    const marks = groupLine(db, async (tx, batch: readonly string[]) => {
      await tx.query(
        "update floor_inbox set state = 'done', body = null, headers = null where id = any($1::text[])",
        [batch],
      );
    }, (batch) => {
      done += batch.length;
      if (done === o.messages) finished.resolve(performance.now());
    });
    const captures = groupLine(db, async (tx, batch: readonly amqp.ConsumeMessage[]) => {
      const params: unknown[] = [];
      const rows = batch.map((m) => {
        params.push(m.properties.messageId, m.content.toString(), m.properties.headers ?? {});
        const at = params.length;
        return `($${at - 2}, 'pending', $${at - 1}::jsonb, $${at}::jsonb)`;
      });
      await tx.query(
        `insert into floor_inbox (id, state, body, headers) values ${rows.join(", ")}`,
        params,
      );
    }, (batch) => {
      // One writer, deliveries in tag order: the batch's last tag covers the batch.
      channel.ack(batch[batch.length - 1], true);
      marks.join(batch.map((m) => m.properties.messageId as string));
    });
    await channel.consume(o.queue, (m) => {
      if (!m) return;
      if (first === 0) {
        first = performance.now();
        meter.start();
      }
      captures.join([m]);
    });
    const last = await finished.promise;
    const rate = (o.messages - 1) / ((last - first) / 1000);
    return { rate, cpu: meter.stop(rate) };
  } finally {
    await connection.close();
    await db.close();
    await dropSchema(o.database, schema);
  }
}

/** Items written one group transaction at a time; `after` runs once a group is durable. */
function groupLine<T>(
  db: Database,
  write: (tx: Parameters<Parameters<Database["transaction"]>[0]>[0], batch: T[]) => Promise<void>,
  after: (batch: T[]) => void,
): { join(items: readonly T[]): void } {
  const waiting: T[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, MAX_GROUP);
        await db.transaction((tx) => write(tx, batch));
        after(batch);
      }
    } finally {
      writing = false;
    }
  };
  return {
    join(items) {
      waiting.push(...items);
      if (!writing) void drain();
    },
  };
}
