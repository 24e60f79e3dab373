/**
 * Helpers for the tier-2 RabbitMQ tests: the broker named by
 * `SUTRA_TEST_RABBITMQ_URL` (tests are skipped with a notice without it,
 * and fail under `SUTRA_TEST_REQUIRE_SERVICES=1`), a client connection to
 * publish and read with, unique queue names, the `rabbitmq_channel` fixture
 * package sealed for a test, and `rabbitmqctl` for what only the broker's
 * own tool can do (closing a connection, listing consumers).
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { Buffer } from "node:buffer";
import {
  REQUIRE_SERVICES_ENV,
  serverDatabaseUrl,
  servicesRequired,
  TEST_DATABASE_URL_ENV,
} from "./test_database.ts";
import { takeUntil } from "./take_until.ts";
import { sealFixture } from "./fixture_package.ts";

/** Variable naming the tier-2 RabbitMQ broker. */
export const TEST_RABBITMQ_URL_ENV = "SUTRA_TEST_RABBITMQ_URL";

/** The broker URL, or undefined when tier 2 is not configured. */
export function rabbitUrl(): string | undefined {
  return Deno.env.get(TEST_RABBITMQ_URL_ENV)?.trim() || undefined;
}

let noticePrinted = false;

/**
 * Registers a test that needs the broker and the tier-2 PostgreSQL server
 * (the engines under test keep their state there: it boots in a second,
 * where embedded PGlite takes many on a busy machine). Ignored with a
 * notice when either is not configured, unless services are required.
 */
export function rabbitTest(name: string, fn: (url: string) => Promise<void>): void {
  const url = rabbitUrl() && serverDatabaseUrl() ? rabbitUrl() : undefined;
  if (!url && !servicesRequired()) {
    if (!noticePrinted) {
      noticePrinted = true;
      console.log(
        `notice: RabbitMQ tier-2 tests are skipped because ${TEST_RABBITMQ_URL_ENV} or ` +
          `${TEST_DATABASE_URL_ENV} is not set ` +
          `(${REQUIRE_SERVICES_ENV}=1 makes that a failure)`,
      );
    }
    Deno.test({ name, ignore: true, fn: () => {} });
    return;
  }
  Deno.test(name, async () => {
    if (!url) {
      throw new Error(
        `${TEST_RABBITMQ_URL_ENV} and ${TEST_DATABASE_URL_ENV} must be set under ${REQUIRE_SERVICES_ENV}=1`,
      );
    }
    await fn(url);
  });
}

/** A unique queue prefix for one test. */
export function uniquePrefix(label: string): string {
  return `sutra-test-${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A received message, decoded. */
export interface Received {
  readonly body: string;
  readonly properties: Record<string, unknown>;
  readonly headers: Record<string, unknown>;
}

/** A client connection to the broker for a test. */
export class Broker {
  private constructor(
    readonly connection: Awaited<ReturnType<typeof amqp.connect>>,
    readonly channel: Awaited<
      ReturnType<Awaited<ReturnType<typeof amqp.connect>>["createConfirmChannel"]>
    >,
  ) {}

  /** Connects to `url`. */
  static async open(url: string): Promise<Broker> {
    const connection = await amqp.connect(url);
    const channel = await connection.createConfirmChannel();
    return new Broker(connection, channel);
  }

  /** Declares a durable queue (so a test can publish before the engine consumes). */
  async queue(name: string): Promise<void> {
    await this.channel.assertQueue(name, { durable: true });
  }

  /** Publishes to a queue and waits for the broker's confirm. */
  async send(
    queue: string,
    body: unknown,
    properties: Record<string, unknown> = {},
  ): Promise<void> {
    const bytes = typeof body === "string" ? body : JSON.stringify(body);
    this.channel.sendToQueue(queue, Buffer.from(bytes), {
      contentType: "application/json",
      persistent: true,
      ...properties,
    });
    await this.channel.waitForConfirms();
  }

  /** Publishes JSON bodies to a queue (message ids `<idPrefix><n>`) and waits for every confirm. */
  async sendMany(queue: string, bodies: readonly unknown[], idPrefix: string): Promise<void> {
    bodies.forEach((body, n) =>
      this.channel.sendToQueue(queue, Buffer.from(JSON.stringify(body)), {
        contentType: "application/json",
        persistent: true,
        messageId: `${idPrefix}${n}`,
      })
    );
    await this.channel.waitForConfirms();
  }

  /** Takes every message now ready on `queue` (acknowledged). */
  async take(queue: string): Promise<Received[]> {
    const out: Received[] = [];
    for (;;) {
      const m = await this.channel.get(queue, { noAck: true });
      if (!m) return out;
      out.push({
        body: m.content.toString(),
        properties: m.properties as unknown as Record<string, unknown>,
        headers: (m.properties.headers ?? {}) as Record<string, unknown>,
      });
    }
  }

  /** Waits until `queue` has given `count` messages in all; answers them. */
  await(queue: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    return takeUntil(() => this.take(queue), { what: queue, count, timeoutMs, pollMs: 25 });
  }

  /** Messages ready (not delivered to a consumer) on `queue`. */
  async ready(queue: string): Promise<number> {
    return (await this.channel.checkQueue(queue)).messageCount;
  }

  /** Deletes the queues (best effort) and closes the connection. */
  async close(queues: readonly string[] = []): Promise<void> {
    for (const q of queues) await this.channel.deleteQueue(q).catch(() => {});
    await this.connection.close().catch(() => {});
  }
}

/** Runs `rabbitmqctl` with `args`; answers its stdout. */
export async function rabbitmqctl(...args: string[]): Promise<string> {
  const out = await new Deno.Command("rabbitmqctl", { args: ["-q", ...args] }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`rabbitmqctl ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** The consumers on `queue` (one line each) as `rabbitmqctl list_consumers` shows them. */
export async function consumersOf(queue: string): Promise<string[]> {
  const text = await rabbitmqctl("list_consumers", "queue_name", "channel_pid");
  return text.split("\n").filter((line) => line.split("\t")[0] === queue);
}

/** Closes every broker connection whose `connection_name` is `name`; answers how many. */
export async function closeConnections(name: string): Promise<number> {
  const text = await rabbitmqctl("list_connections", "pid", "client_properties");
  const pids = text.split("\n").filter((line) => line.includes(`"${name}"`))
    .map((line) => line.split("\t")[0]);
  for (const pid of pids) await rabbitmqctl("close_connection", pid, "test");
  return pids.length;
}

/** Options for {@link rabbitPackage}. */
export interface RabbitPackageOptions {
  /** The unique queue prefix. */
  readonly prefix: string;
  readonly ackMode?: "on-persist" | "on-complete";
  readonly singleton?: boolean;
  /** The decisions channel is send-only (`consume: false`). */
  readonly sendOnlyDecisions?: boolean;
}

/** The `rabbitmq_channel` fixture package sealed for one test. */
export function rabbitPackage(o: RabbitPackageOptions): Promise<Uint8Array> {
  const decisions = '      queue: "@Q@.decisions"\n';
  return sealFixture("rabbitmq_channel", {
    ...(o.sendOnlyDecisions ? { [decisions]: `${decisions}      consume: false\n` } : {}),
    "@Q@": o.prefix,
    "@ACK@": o.ackMode ?? "on-persist",
    "@SINGLETON@": String(o.singleton ?? false),
  });
}

/** The queues the fixture uses under `prefix`. */
export function fixtureQueues(prefix: string): string[] {
  return ["orders", "orders.dlq", "decisions", "decisions.dlq", "confirmed"].map((q) =>
    `${prefix}.${q}`
  );
}
