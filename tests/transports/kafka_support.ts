/**
 * Helpers for the kafka transport tests: the brokers (a fresh
 * {@link KafkaTestBroker} test double per test, or the real cluster
 * `SUTRA_TEST_KAFKA_BROKERS` names), a kafkajs client to create topics,
 * produce, read topics and look at committed offsets with, unique topic
 * names, and the `kafka_channel` fixture package sealed for a test. The
 * engines under test keep their state on the tier-2 PostgreSQL server, so
 * the tests are skipped (with a notice) without it.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { type Consumer, Kafka, logLevel, Partitioners } from "kafkajs";
import { KafkaTestBroker } from "../support/kafka_broker/mod.ts";
import { tier2Test } from "../support/test_database.ts";
import { sealFixture } from "../support/fixture_package.ts";

/** Variable naming a real cluster's bootstrap brokers (`host:port,…`). */
export const TEST_KAFKA_BROKERS_ENV = "SUTRA_TEST_KAFKA_BROKERS";

/** What a kafka test gets. */
export interface KafkaTestContext {
  /** The bootstrap brokers, `host:port[,…]`. */
  readonly brokers: string;
  /** The test double, when the test runs against it (undefined on a real cluster). */
  readonly double?: KafkaTestBroker;
  readonly client: KafkaClient;
}

/**
 * Registers a kafka test (skipped without the tier-2 PostgreSQL server, as
 * the engines keep state there). A `doubleOnly` test needs to stop and
 * restart the broker, so it is skipped against a real cluster.
 */
export function kafkaTest(
  name: string,
  fn: (ctx: KafkaTestContext) => Promise<void>,
  options: { doubleOnly?: boolean } = {},
): void {
  const real = Deno.env.get(TEST_KAFKA_BROKERS_ENV)?.trim();
  if (real && options.doubleOnly) {
    Deno.test({ name: `${name} (test double only)`, ignore: true, fn: () => {} });
    return;
  }
  tier2Test(name, async () => {
    const double = real ? undefined : KafkaTestBroker.start({ defaultPartitions: 1 });
    const brokers = real || double!.address;
    const client = new KafkaClient(brokers);
    try {
      await fn({ brokers, client, ...(double ? { double } : {}) });
    } finally {
      await client.close();
      await double?.close();
    }
  });
}

/** A unique topic prefix for one test. */
export function uniqueTopic(label: string): string {
  return `sutra-test-${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A record as a test reads it back. */
export interface ReadRecord {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/** A SASL PLAIN login. */
export interface KafkaLogin {
  readonly username: string;
  readonly password: string;
}

/** A kafkajs client for a test. */
export class KafkaClient {
  readonly kafka: Kafka;
  readonly #admin;
  readonly #producer;
  readonly #readers: Consumer[] = [];
  #connected: Promise<void> | undefined;

  /**
   * `login`: SASL PLAIN credentials for a broker that asks for them; `ca`:
   * the PEM certificate a TLS broker is trusted by.
   */
  constructor(brokers: string, o: { login?: KafkaLogin; ca?: string } = {}) {
    this.kafka = new Kafka({
      brokers: brokers.split(","),
      ...(o.login ? { sasl: { mechanism: "plain", ...o.login } } : {}),
      ...(o.ca ? { ssl: { ca: o.ca } } : {}),
      clientId: "sutra-test",
      logLevel: logLevel.NOTHING,
      retry: { retries: 3, initialRetryTime: 100 },
    });
    this.#admin = this.kafka.admin();
    this.#producer = this.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  }

  #connect(): Promise<void> {
    return this.#connected ??= Promise.all([this.#admin.connect(), this.#producer.connect()])
      .then(() => {});
  }

  /** Creates topics with `partitions` partitions each. */
  async topics(names: readonly string[], partitions = 1): Promise<void> {
    await this.#connect();
    await this.#admin.createTopics({
      topics: names.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
      waitForLeaders: true,
    });
  }

  /** Produces records (JSON-encoded values unless strings) with acks=all. */
  async send(
    topic: string,
    records: readonly {
      value: unknown;
      key?: string;
      partition?: number;
      headers?: Record<string, string>;
    }[],
  ): Promise<void> {
    await this.#connect();
    await this.#producer.send({
      topic,
      acks: -1,
      messages: records.map((r) => ({
        value: typeof r.value === "string" ? r.value : JSON.stringify(r.value),
        ...(r.key === undefined ? {} : { key: r.key }),
        ...(r.partition === undefined ? {} : { partition: r.partition }),
        headers: { "content-type": "application/json", ...r.headers },
      })),
    });
  }

  /**
   * Reads `topic` from its start until `count` records came (or `count`
   * says the records so far are enough); answers them.
   */
  async read(
    topic: string,
    count: number | ((got: readonly ReadRecord[]) => boolean),
    timeoutMs = 20_000,
  ): Promise<ReadRecord[]> {
    const enough = typeof count === "number"
      ? (got: readonly ReadRecord[]) => got.length >= count
      : count;
    const got: ReadRecord[] = [];
    const reader = this.kafka.consumer({
      groupId: `sutra-test-reader-${crypto.randomUUID()}`,
      maxWaitTimeInMs: 100,
      heartbeatInterval: 300,
    });
    this.#readers.push(reader);
    await reader.connect();
    await reader.subscribe({ topic, fromBeginning: true });
    await reader.run({
      eachMessage: ({ partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) {
          if (v !== undefined) headers[k] = Buffer.from(v as Uint8Array).toString();
        }
        got.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value?.toString() ?? "",
          headers,
        });
        return Promise.resolve();
      },
    });
    const deadline = Date.now() + timeoutMs;
    while (!enough(got) && Date.now() < deadline) await pause(25);
    await reader.disconnect();
    if (!enough(got)) {
      throw new Error(`${topic}: not enough records after ${timeoutMs} ms (${got.length})`);
    }
    return got;
  }

  /** The committed offsets of `group` on `topic`, by partition (-1: none). */
  async committed(group: string, topic: string): Promise<number[]> {
    await this.#connect();
    const [answer] = await this.#admin.fetchOffsets({ groupId: group, topics: [topic] });
    return answer.partitions.sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
  }

  /**
   * How many members `group` has once its rebalance is done (the test
   * double's coordinator, else the cluster's); 0 while it is rebalancing.
   */
  async members(group: string, double?: KafkaTestBroker): Promise<number> {
    if (double) {
      const described = double.groups.describe(group);
      return described.state === "Stable" ? described.members : 0;
    }
    await this.#connect();
    const { groups } = await this.#admin.describeGroups([group]);
    return groups[0]?.state === "Stable" ? groups[0].members.length : 0;
  }

  /** Disconnects everything. */
  async close(): Promise<void> {
    for (const r of this.#readers) await r.disconnect().catch(() => {});
    if (this.#connected) {
      await this.#producer.disconnect().catch(() => {});
      await this.#admin.disconnect().catch(() => {});
    }
  }
}

/** Options for {@link kafkaPackage}. */
export interface KafkaPackageOptions {
  /** The unique topic prefix. */
  readonly prefix: string;
  readonly ackMode?: "on-persist" | "on-complete";
  readonly singleton?: boolean;
  /** Every kafka channel logs in with SASL PLAIN as the user and password these variables hold. */
  readonly sasl?: KafkaLogin;
  /** Every kafka channel connects with TLS, trusting the PEM certificate at this path. */
  readonly tlsCa?: string;
}

/** The `kafka_channel` fixture package sealed for one test. */
export function kafkaPackage(o: KafkaPackageOptions): Promise<Uint8Array> {
  // Login and TLS settings go right after each kafka channel's brokers.
  const brokers = "      brokers: env:SUTRA_TEST_KAFKA_BROKERS\n";
  const sasl = o.sasl
    ? `      sasl:\n        mechanism: plain\n` +
      `        username: env:${o.sasl.username}\n        password: env:${o.sasl.password}\n`
    : "";
  const tls = o.tlsCa ? `      tls:\n        ca: "${o.tlsCa}"\n` : "";
  return sealFixture("kafka_channel", {
    ...(sasl || tls ? { [brokers]: `${brokers}${sasl}${tls}` } : {}),
    "@T@": o.prefix,
    "@ACK@": o.ackMode ?? "on-persist",
    "@SINGLETON@": String(o.singleton ?? false),
  });
}

/** The topics the fixture uses under `prefix`. */
export function fixtureTopics(prefix: string): string[] {
  return ["orders", "orders.dlt", "decisions", "decisions.dlt", "confirmed", "replies", "events"]
    .map((t) => `${prefix}.${t}`);
}

/** The fixture's orders channel consumer group. */
export const ORDERS_GROUP = "sutra.test.kf-orders";

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A self-signed certificate for 127.0.0.1 (and its key), made with the
 * `openssl` command in `dir`: the TLS broker serves it, clients trust it.
 */
export async function selfSignedCertificate(
  dir: string,
): Promise<{ cert: string; key: string; certPath: string }> {
  const certPath = `${dir}/broker.pem`;
  const keyPath = `${dir}/broker.key`;
  const { success, stderr } = await new Deno.Command("openssl", {
    args: [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
      ...["-keyout", keyPath, "-out", certPath, "-subj", "/CN=127.0.0.1"],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`openssl: ${new TextDecoder().decode(stderr)}`);
  return {
    cert: await Deno.readTextFile(certPath),
    key: await Deno.readTextFile(keyPath),
    certPath,
  };
}
