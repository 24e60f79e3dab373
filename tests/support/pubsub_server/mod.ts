/**
 * A Google Cloud Pub/Sub **test double**: no Pub/Sub server or emulator can
 * be installed on these machines, so the `pubsub` transport's tests run the
 * real `@google-cloud/pubsub` client over gRPC against this in-memory
 * server (`server.ts`, from the client's own `.proto` files; semantics in
 * `broker.ts`). It is not Pub/Sub: it keeps nothing on disk, has one
 * process's worth of state and implements only what the client uses.
 *
 * With `SUTRA_TEST_PUBSUB_EMULATOR_HOST=host:port` the tests talk to that
 * server instead (the real emulator, `gcloud beta emulators pubsub start`);
 * tests that need to break the server on purpose (an outage, a forced
 * lease expiry) are then skipped, since only the double can be told to.
 *
 * {@link PubSubPeer} is the tests' own client: topics, subscriptions,
 * publishing and reading, through the same library.
 *
 * @module
 */
import {
  Duration,
  type Message,
  PubSub,
  type Subscription,
  type Topic,
} from "@google-cloud/pubsub";
import { Buffer } from "node:buffer";
import { PubSubGrpcServer } from "./server.ts";
import { PubSubDoubleProcess } from "./process.ts";
import type { SubscriptionStats } from "./broker.ts";

export { PubSubGrpcServer } from "./server.ts";
export { BrokerError, PubSubState, type SubscriptionStats } from "./broker.ts";

/** Variable naming a real Pub/Sub emulator to test against instead of the double. */
export const TEST_PUBSUB_EMULATOR_ENV = "SUTRA_TEST_PUBSUB_EMULATOR_HOST";

/** The project the tests use. */
export const TEST_PROJECT = "sutra-test";

/** Where the tests' Pub/Sub is; `double` is set when it is the in-memory test double. */
export interface PubSubTarget {
  /** `host:port`, as `PUBSUB_EMULATOR_HOST` takes it. */
  readonly host: string;
  readonly double?: PubSubGrpcServer;
  /** The double when it runs in a process of its own. */
  readonly process?: PubSubDoubleProcess;
  /** Stops the double (nothing for an external emulator). */
  close(): Promise<void>;
}

/** True when the tests run against an external emulator (tests that break the double are skipped). */
export function externalEmulator(): boolean {
  return Boolean(Deno.env.get(TEST_PUBSUB_EMULATOR_ENV)?.trim());
}

/**
 * The external emulator when configured, else a fresh double on a free
 * port: in this process, or with `ownProcess` in one of its own (for a test
 * that stops and restarts it, see `process.ts`).
 */
export async function openPubSub(
  options: { readonly ownProcess?: boolean } = {},
): Promise<PubSubTarget> {
  const external = Deno.env.get(TEST_PUBSUB_EMULATOR_ENV)?.trim();
  if (external) return { host: external, close: () => Promise.resolve() };
  if (options.ownProcess) {
    const process = await PubSubDoubleProcess.start();
    return { host: `127.0.0.1:${process.port}`, process, close: () => process.close() };
  }
  const double = new PubSubGrpcServer();
  const port = await double.start();
  return { host: `127.0.0.1:${port}`, double, close: () => double.stop() };
}

/** A client of `host` as the engine makes one: emulator mode, no metadata-server probing. */
export function pubsubClient(host: string, projectId = TEST_PROJECT): PubSub {
  return new PubSub({
    projectId,
    apiEndpoint: host,
    emulatorMode: true,
    // Without a universe domain the auth library probes the GCE metadata server first.
    universeDomain: "googleapis.com",
  });
}

/** A unique resource prefix for one test. */
export function uniqueName(label: string): string {
  return `sutra-${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A message a test read back. */
export interface PeerMessage {
  readonly id: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly orderingKey: string;
  readonly deliveryAttempt: number;
}

/** A test's own client: creates topics and subscriptions, publishes, reads (acking). */
export class PubSubPeer {
  readonly client: PubSub;
  readonly #readers = new Map<string, { sub: Subscription; got: PeerMessage[] }>();
  readonly #publishers = new Map<string, Topic>();

  constructor(readonly target: PubSubTarget) {
    this.client = pubsubClient(target.host);
  }

  /** Creates topics (an existing one is fine). */
  async topics(...names: string[]): Promise<void> {
    for (const name of names) {
      const [exists] = await this.client.topic(name).exists();
      if (!exists) await this.client.createTopic(name);
    }
  }

  /** Creates a plain subscription `name` on `topic` for reading. */
  async subscription(name: string, topic: string): Promise<void> {
    await this.client.topic(topic).createSubscription(name);
  }

  /** Publishes one message; answers its id. */
  async publish(
    topic: string,
    body: unknown,
    attributes: Record<string, string> = {},
    orderingKey?: string,
  ): Promise<string> {
    const t = this.#publisher(topic);
    const data = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    return await t.publishMessage({ data, attributes, ...(orderingKey ? { orderingKey } : {}) });
  }

  /** Publishes many messages at once (the client batches them); answers their ids in order. */
  async publishMany(topic: string, bodies: readonly unknown[]): Promise<string[]> {
    const t = this.client.topic(topic, { batching: { maxMessages: 500, maxMilliseconds: 20 } });
    try {
      return await Promise.all(
        bodies.map((body) => t.publishMessage({ data: Buffer.from(JSON.stringify(body)) })),
      );
    } finally {
      await t.flush();
    }
  }

  /**
   * One publisher per topic, with message ordering: publishes of one ordering key reach the
   * server in the order they were made, even when the test does not wait for each.
   */
  #publisher(topic: string): Topic {
    let t = this.#publishers.get(topic);
    if (!t) this.#publishers.set(topic, t = this.client.topic(topic, { messageOrdering: true }));
    return t;
  }

  /** Waits until `n` messages arrived on `subscription` (acked on arrival) and answers them. */
  async take(subscription: string, n: number, timeoutMs = 20_000): Promise<PeerMessage[]> {
    const reader = this.#reader(subscription);
    for (let waited = 0; reader.got.length < n; waited += 20) {
      if (waited > timeoutMs) {
        throw new Error(`${subscription}: ${reader.got.length} of ${n} messages arrived`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return reader.got.splice(0, n);
  }

  /** What arrived on `subscription` so far and was not taken. */
  waiting(subscription: string): PeerMessage[] {
    return this.#reader(subscription).got.splice(0);
  }

  /** The double's counters for a subscription (only against the double). */
  stats(subscription: string): SubscriptionStats {
    const double = this.target.double;
    if (!double) throw new Error("subscription counters need the test double");
    return double.state.stats(`projects/${TEST_PROJECT}/subscriptions/${subscription}`);
  }

  async close(): Promise<void> {
    for (const { sub } of this.#readers.values()) await sub.close();
    await this.client.close();
  }

  #reader(name: string) {
    let reader = this.#readers.get(name);
    if (!reader) {
      const sub = this.client.subscription(name, {
        minAckDeadline: Duration.from({ seconds: 10 }),
        maxAckDeadline: Duration.from({ seconds: 10 }),
      });
      const got: PeerMessage[] = [];
      sub.on("message", (m: Message) => {
        got.push({
          id: m.id,
          body: m.data.toString(),
          attributes: m.attributes,
          orderingKey: m.orderingKey ?? "",
          deliveryAttempt: m.deliveryAttempt,
        });
        m.ack();
      });
      sub.on("error", () => {});
      this.#readers.set(name, reader = { sub, got });
    }
    return reader;
  }
}
