/**
 * `deno task bench:transports`: messages per second a queue transport
 * carries from the broker to a completed instance, held against the raw
 * client on the same broker and queue shape.
 *
 * - `rabbitmq on-persist stateless`: N messages preloaded on a durable
 *   queue; the engine (retention PT0S, so nothing is kept) consumes them
 *   on an on-persist channel whose process starts and ends at once; the
 *   rate counts from the moment the broker sees the consumer take the
 *   first messages to the moment the last one has run, and the line adds
 *   the engine's statements and commits per message.
 * - `raw amqplib consume+ack`: the same N messages on a queue of the same
 *   shape, consumed with the same prefetch and acknowledged one by one.
 * - `on-persist floor` (on a PostgreSQL server only): the same N messages
 *   through the least database work on-persist asks of any engine — a
 *   group-committed capture before the ack, a group-committed done-mark
 *   after — with no engine (`bench/_rabbitmq_floor_line.ts`); the lines
 *   `ratio floor/raw` and `ratio engine/floor` place the engine between
 *   the two.
 *
 * - `amqp10 on-persist stateless` beside `raw rhea receive+accept`: the
 *   same shape through RabbitMQ's AMQP 1.0 plugin (`bench/_amqp10_bench_line.ts`).
 * - `sqs on-persist stateless` beside `raw client-sqs receive+delete`
 *   (`bench/_sqs_bench_line.ts`): on the endpoint `SUTRA_TEST_SQS_ENDPOINT`
 *   names, else on a fauxqs emulator started for the run.
 * - `kafka on-persist stateless` beside raw kafkajs consumers committing
 *   each record and each batch (`bench/_kafka_bench_line.ts`): on the
 *   cluster `SUTRA_TEST_KAFKA_BROKERS` names, else on the Kafka test double
 *   in this process, which then shares the CPU with both loops (quote the
 *   ratio, not the rates).
 * - `pubsub on-persist stateless` beside `raw pubsub streaming pull+ack`
 *   (`bench/_pubsub_bench_line.ts`): on the emulator
 *   `SUTRA_TEST_PUBSUB_EMULATOR_HOST` names, else on the Pub/Sub test double
 *   in this process, both with a flow-control window of `--pubsub-window`
 *   (default 300: a window of W caps either loop near 10·W messages/s).
 *
 * Measured (10,000 messages, PostgreSQL, two cores shared with other
 * sessions, load average 3–6): rabbitmq 0.134×, 0.102×, 0.135× raw amqplib;
 * amqp10 0.153×, 0.185×, 0.205× raw rhea; 0.11–0.12 statements and 0.04
 * commits per message. At load average 11–20: rabbitmq 0.07×–0.17× (acks
 * coalesced: 355 ack frames for 10,000 messages), kafka 0.415× per record,
 * pubsub 0.359× and 0.436×, sqs 0.389× (5,000). Quiet (load average 1,
 * 10,000 messages): rabbitmq 0.19–0.24× raw amqplib with the on-persist
 * floor itself at 0.33–0.41×; kafka 0.50–0.60× per record, sqs 0.48×,
 * pubsub 0.90×. That sqs figure had the raw loop pay for compiling the SDK,
 * which the engine line after it found compiled: with an untimed raw round
 * first, sqs is 0.27–0.37× (three runs). Where the rest goes: `docs/runtime.md`, "The on-persist
 * path, measured".
 *
 * Each ratio line divides an engine line by its raw loop. The rabbitmq and
 * amqp10 lines need the broker named by `SUTRA_TEST_RABBITMQ_URL` (default
 * the local guest account) and are skipped with a line saying so without
 * it; the engine keeps its state on `SUTRA_TEST_DATABASE_URL` when set, else
 * in-memory PGlite. `--messages N` (default 5000), `--prefetch N` (default
 * 64; sqs messages in hand), `--only rabbitmq,amqp10,sqs,kafka,pubsub` (the
 * lines to run, in the order given; default all, in this order).
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { Buffer } from "node:buffer";
import type { RunningEngine } from "../engine/runtime/mod.ts";
import {
  benchArgs,
  benchLines,
  channelRate,
  cpuMeter,
  type CpuUse,
  firstTaken,
  inboxRate,
  serverUrl,
} from "./_support.ts";
import { amqp10BenchLine } from "./_amqp10_bench_line.ts";
import { kafkaBenchLine } from "./_kafka_bench_line.ts";
import { pubsubBenchLine } from "./_pubsub_bench_line.ts";
import { rabbitmqFloorLine } from "./_rabbitmq_floor_line.ts";
import { sqsBenchLine } from "./_sqs_bench_line.ts";

const args = benchArgs();
const messages = Number(args.get("messages") ?? 5000);
const prefetch = Number(args.get("prefetch") ?? 64);
// A window of W caps a Pub/Sub stream near 10·W messages/s (acks go out every 100 ms).
const pubsubWindow = Number(args.get("pubsub-window") ?? 300);
const brokerUrl = Deno.env.get("SUTRA_TEST_RABBITMQ_URL")?.trim() ||
  "amqp://guest:guest@127.0.0.1:5672";
const database = serverUrl();
const lines = benchLines("transports", {
  messages,
  prefetch,
  database: database ? "postgres" : "pglite",
});

/** A connection to the RabbitMQ broker, and a confirm channel on it. */
type Connection = Awaited<ReturnType<typeof amqp.connect>>;
type ConfirmChannel = Awaited<ReturnType<Connection["createConfirmChannel"]>>;

/** Preloads `n` persistent JSON messages on a fresh durable queue. */
async function preload(
  channel: ConfirmChannel,
  queue: string,
  n: number,
): Promise<void> {
  await channel.assertQueue(queue, { durable: true });
  for (let i = 0; i < n; i++) {
    channel.sendToQueue(queue, Buffer.from(JSON.stringify({ n: i })), {
      contentType: "application/json",
      persistent: true,
      messageId: `m-${i}`,
    });
    if (i % 1000 === 999) await channel.waitForConfirms();
  }
  await channel.waitForConfirms();
}

/** The raw client: consume and ack every preloaded message; messages per second. */
async function rawLoop(queue: string): Promise<{ rate: number; cpu: CpuUse }> {
  const connection = await amqp.connect(brokerUrl);
  try {
    const channel = await connection.createChannel();
    await channel.prefetch(prefetch);
    let first = 0;
    let seen = 0;
    const meter = cpuMeter();
    const done = new Promise<number>((resolve) => {
      channel.consume(queue, (m) => {
        if (!m) return;
        if (seen === 0) first = performance.now();
        channel.ack(m);
        if (++seen === messages) resolve(performance.now());
      });
    });
    const last = await done;
    const rate = (messages - 1) / ((last - first) / 1000);
    return { rate, cpu: meter.stop(rate) };
  } finally {
    await connection.close();
  }
}

/**
 * Counts the statements the engine sends through `db`, and its commits
 * (transactions, and writes sent alone), from now until `restore`;
 * `uncounted` queries around the count.
 */
function countStatements(db: RunningEngine["database"]) {
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  const counted = {
    statements: 0,
    transactions: 0,
    uncounted: { query },
    restore: () => Object.assign(db, { query, transaction }),
  };
  const countingTx = <T extends object>(tx: T): T =>
    new Proxy(tx, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "query" || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          counted.statements++;
          return value.apply(target, args);
        };
      },
    });
  Object.assign(db, {
    query: (...args: Parameters<typeof db.query>) => {
      counted.statements++;
      // A write outside a transaction commits on its own.
      if (!/^\s*select\b/i.test(args[0])) counted.transactions++;
      return query(...args);
    },
    transaction: <T>(fn: Parameters<typeof db.transaction<T>>[0]) => {
      counted.transactions++;
      return transaction((tx) => fn(countingTx(tx)));
    },
  });
  return counted;
}

/** The engine: deploy, then time the preloaded queue from first capture to last completion. */
async function engineLoop(
  channel: ConfirmChannel,
  queue: string,
): Promise<
  { rate: number; cpu: CpuUse; statementsPerMessage: number; transactionsPerMessage: number }
> {
  const meter = cpuMeter();
  const since = firstTaken(
    async () => (await channel.checkQueue(queue)).messageCount,
    messages,
    () => meter.start(),
  );
  let statements = 0;
  let transactions = 0;
  let cpu: CpuUse | undefined;
  const rate = await channelRate({
    module: "transports-bench",
    channel: {
      name: "bench-in",
      transport: "rabbitmq",
      options: { url: "env:SUTRA_TEST_RABBITMQ_URL", queue, prefetch },
    },
    messages,
    ...(database ? { database } : {}),
    env: { SUTRA_TEST_RABBITMQ_URL: brokerUrl },
    clock: async (engine) => {
      const counted = countStatements(engine.database);
      try {
        const rate = await inboxRate(counted.uncounted.query, messages, since);
        cpu = meter.stop(rate);
        return rate;
      } finally {
        ({ statements, transactions } = counted);
        counted.restore();
      }
    },
  });
  // Counted from the deploy on: every message's statements (bar a first few at most).
  const perMessage = (n: number) => Math.round((n / messages) * 100) / 100;
  return {
    rate,
    cpu: cpu!,
    statementsPerMessage: perMessage(statements),
    transactionsPerMessage: perMessage(transactions),
  };
}

/** The rabbitmq line: the raw amqplib loop, then the engine, on two fresh queues. */
async function rabbitmqLine(connection: Connection): Promise<void> {
  const channel = await connection.createConfirmChannel();
  const tag = crypto.randomUUID().slice(0, 8);
  const rawQueue = `sutra-bench-raw-${tag}`;
  const engineQueue = `sutra-bench-engine-${tag}`;
  const floorQueue = `sutra-bench-floor-${tag}`;
  try {
    await preload(channel, rawQueue, messages);
    const raw = await rawLoop(rawQueue);
    lines.rate("raw amqplib consume+ack", raw.rate, { ...raw.cpu });
    await preload(channel, engineQueue, messages);
    const engine = await engineLoop(channel, engineQueue);
    lines.rate("rabbitmq on-persist stateless", engine.rate, {
      ...engine.cpu,
      statementsPerMessage: engine.statementsPerMessage,
      transactionsPerMessage: engine.transactionsPerMessage,
    });
    lines.ratio("ratio engine/raw", engine.rate, raw.rate);
    if (!database) return;
    await preload(channel, floorQueue, messages);
    const floor = await rabbitmqFloorLine({
      brokerUrl,
      queue: floorQueue,
      messages,
      prefetch,
      database,
    });
    lines.rate("on-persist floor: two group commits, no engine", floor.rate, { ...floor.cpu });
    lines.ratio("ratio floor/raw", floor.rate, raw.rate);
    lines.ratio("ratio engine/floor", engine.rate, floor.rate);
  } finally {
    for (const q of [rawQueue, engineQueue, floorQueue, `${engineQueue}.dlq`]) {
      await channel.deleteQueue(q).catch(() => {});
    }
  }
}

/** Every line, by the name `--only` selects it with. */
const LINES: Record<string, () => Promise<void>> = {
  rabbitmq: async () => {
    const connection = await rabbitmqConnection();
    if (!connection) return;
    try {
      await rabbitmqLine(connection);
    } finally {
      await connection.close();
    }
  },
  // The AMQP 1.0 transport on the same broker, through its AMQP 1.0 plugin.
  amqp10: async () => {
    const connection = await rabbitmqConnection();
    if (!connection) return;
    await connection.close();
    const a10 = await amqp10BenchLine({ brokerUrl, messages, prefetch, database });
    lines.rate("raw rhea receive+accept", a10.raw);
    lines.rate("amqp10 on-persist stateless", a10.engine);
    lines.ratio("ratio amqp10 engine/raw", a10.engine, a10.raw);
  },
  // fauxqs, started for the run, unless SUTRA_TEST_SQS_ENDPOINT names an endpoint.
  sqs: async () => {
    const endpoint = Deno.env.get("SUTRA_TEST_SQS_ENDPOINT")?.trim() || undefined;
    const sqs = await sqsBenchLine({ endpoint, messages, prefetch, database });
    const where = { endpoint: endpoint ? "external" : "fauxqs" };
    lines.rate("raw client-sqs receive+delete", sqs.raw, where);
    lines.rate("sqs on-persist stateless", sqs.engine, where);
    lines.ratio("ratio sqs/raw", sqs.engine, sqs.raw);
  },
  // The Kafka test double in this process, unless SUTRA_TEST_KAFKA_BROKERS names a cluster.
  kafka: async () => {
    const brokers = Deno.env.get("SUTRA_TEST_KAFKA_BROKERS")?.trim() || undefined;
    const kafka = await kafkaBenchLine({ brokers, messages, database });
    const where = { broker: kafka.broker };
    lines.rate("raw kafkajs consume+commit per record", kafka.raw, where);
    lines.rate("raw kafkajs consume+commit per batch", kafka.rawBatch, where);
    lines.rate("kafka on-persist stateless", kafka.engine, where);
    lines.ratio("ratio kafka/raw per record", kafka.engine, kafka.raw);
    lines.ratio("ratio kafka/raw per batch", kafka.engine, kafka.rawBatch);
  },
  // The Pub/Sub test double in this process, unless SUTRA_TEST_PUBSUB_EMULATOR_HOST names one.
  pubsub: async () => {
    const ps = await pubsubBenchLine({ messages, maxMessages: pubsubWindow, database });
    lines.rate("raw pubsub streaming pull+ack", ps.raw, { maxMessages: pubsubWindow });
    lines.rate("pubsub on-persist stateless", ps.engine, { maxMessages: pubsubWindow });
    lines.ratio("ratio pubsub/raw", ps.engine, ps.raw);
  },
};

/**
 * A connection to the RabbitMQ broker, or none: without a broker the
 * line says it was skipped and the other lines go on.
 */
async function rabbitmqConnection(): Promise<Connection | undefined> {
  try {
    return await amqp.connect(brokerUrl);
  } catch (error) {
    lines.record({
      skipped: `no RabbitMQ broker at ${new URL(brokerUrl).host}: ${(error as Error).message}`,
    });
    return undefined;
  }
}

const only = (args.get("only") ?? Object.keys(LINES).join(","))
  .split(",").map((name) => name.trim()).filter((name) => name !== "");
const unknown = only.filter((name) => !(name in LINES));
if (unknown.length > 0) {
  console.error(`--only: unknown line(s) ${unknown.join(", ")}; known: ${Object.keys(LINES)}`);
  Deno.exit(2);
}
for (const name of only) await LINES[name]();
