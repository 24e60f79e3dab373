/**
 * The kafka line of `bench:transports`: records per second the `kafka`
 * transport carries from a topic to a completed instance (an on-persist
 * channel whose process starts and ends at once, retention PT0S), beside a
 * raw `kafkajs` consume+commit loop (its default: the offsets of each
 * fetched batch committed after the batch) on a topic of the same shape.
 * Both topics (one partition each) are preloaded with the same N JSON
 * records before their consumer starts. The brokers are the cluster
 * `SUTRA_TEST_KAFKA_BROKERS` names, else the Kafka test double
 * (`tests/support/kafka_broker/`) in this process — it then shares the
 * CPU with both loops, so quote the ratio, not the rates.
 *
 * ```ts
 * import { kafkaBenchLine } from "./_kafka_bench_line.ts";
 * const { raw, engine } = await kafkaBenchLine({ messages, database });
 * lines.rate("raw kafkajs consume+commit per record", raw);
 * lines.rate("kafka on-persist stateless", engine);
 * ```
 *
 * @module
 */
import { Kafka, logLevel, Partitioners } from "kafkajs";
import { KafkaTestBroker } from "../tests/support/kafka_broker/mod.ts";
import { channelRate, firstTaken } from "./_support.ts";

/** Options for {@link kafkaBenchLine}. */
export interface KafkaBenchOptions {
  /** Bootstrap brokers (`host:port,…`); the in-process test double without them. */
  readonly brokers?: string;
  readonly messages: number;
  /** A PostgreSQL server URL for the engine's state; in-memory PGlite without it. */
  readonly database?: string;
}

/** The rates, records per second, and which broker carried them. */
export interface KafkaBenchRates {
  /** Raw kafkajs, committing each record. */
  readonly raw: number;
  /** Raw kafkajs, committing each fetched batch (its default). */
  readonly rawBatch: number;
  readonly engine: number;
  readonly broker: "test-double" | "cluster";
}

/** Runs the raw loop, then the engine, on two fresh topics. */
export async function kafkaBenchLine(o: KafkaBenchOptions): Promise<KafkaBenchRates> {
  const double = o.brokers ? undefined : KafkaTestBroker.start();
  const brokers = o.brokers ?? double!.address;
  const tag = crypto.randomUUID().slice(0, 8);
  const kafka = new Kafka({
    brokers: brokers.split(","),
    clientId: "sutra-bench",
    logLevel: logLevel.NOTHING,
  });
  try {
    const topics = ["raw", "batch", "engine"].map((t) => `sutra-bench-kafka-${t}-${tag}`);
    await preload(kafka, topics, o.messages);
    const raw = await rawLoop(kafka, topics[0], o.messages, true);
    const rawBatch = await rawLoop(kafka, topics[1], o.messages, false);
    const engine = await engineLoop(o, kafka, brokers, topics[2], double);
    return { raw, rawBatch, engine, broker: double ? "test-double" : "cluster" };
  } finally {
    await double?.close();
  }
}

/** Creates the topics (one partition) and writes `n` JSON records to each, acks=all. */
async function preload(kafka: Kafka, topics: readonly string[], n: number): Promise<void> {
  const admin = kafka.admin();
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await admin.connect();
  await producer.connect();
  try {
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 1 })) });
    for (const topic of topics) {
      for (let from = 0; from < n; from += 500) {
        const messages = [];
        for (let i = from; i < Math.min(n, from + 500); i++) {
          messages.push({
            key: `k-${i}`,
            value: JSON.stringify({ n: i }),
            headers: { "content-type": "application/json" },
          });
        }
        await producer.send({ topic, acks: -1, messages });
      }
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}

/** The raw client: a consumer group reading every record, committing each one or each batch. */
async function rawLoop(
  kafka: Kafka,
  topic: string,
  n: number,
  perRecord: boolean,
): Promise<number> {
  const consumer = kafka.consumer({ groupId: `${topic}-raw`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let first = 0;
    let seen = 0;
    const last = await new Promise<number>((resolve) => {
      void consumer.run({
        autoCommit: !perRecord,
        eachMessage: async ({ partition, message }) => {
          if (seen === 0) first = performance.now();
          if (perRecord) {
            const offset = String(Number(message.offset) + 1);
            await consumer.commitOffsets([{ topic, partition, offset }]);
          }
          if (++seen === n) resolve(performance.now());
        },
      });
    });
    return (n - 1) / ((last - first) / 1000);
  } finally {
    await consumer.disconnect();
  }
}

/**
 * The engine: deploy, then time the preloaded topic from the moment the
 * broker sees records taken (the test double's first read of the topic; on
 * a cluster, the group's first commit) until every record has run
 * ({@link inboxRate}).
 */
async function engineLoop(
  o: KafkaBenchOptions,
  kafka: Kafka,
  brokers: string,
  topic: string,
  double: KafkaTestBroker | undefined,
): Promise<number> {
  const channel = "bench-kafka";
  const admin = kafka.admin();
  await admin.connect();
  const group = `sutra.default.${channel}`;
  // The clock starts when the broker sees the consumer take records. The test double, in this
  // process, records that moment itself: a client's question would queue behind the engine's work.
  const partition = double?.log.partition(topic, 0);
  const since = partition
    ? (async () => {
      while (partition.firstReadAt === undefined) await new Promise((r) => setTimeout(r, 2));
      return partition.firstReadAt;
    })()
    : firstTaken(async () => {
      const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      return o.messages - Math.max(0, Number(offsets.partitions[0]?.offset ?? -1));
    }, o.messages);
  try {
    return await channelRate({
      module: "kafka-bench",
      channel: {
        name: channel,
        transport: "kafka",
        options: { brokers: "env:SUTRA_BENCH_KAFKA_BROKERS", topic, "max-wait": "PT0.1S" },
      },
      messages: o.messages,
      ...(o.database ? { database: o.database } : {}),
      env: { SUTRA_BENCH_KAFKA_BROKERS: brokers },
      clock: since,
    });
  } finally {
    await admin.disconnect();
  }
}
