/**
 * Helpers for the SQS transport tests. The peer is `npm:fauxqs`, an SQS
 * emulator (a test double of Amazon SQS, driven by the real
 * `@aws-sdk/client-sqs`): {@link startFauxqs} runs it as a child process on
 * 127.0.0.1 and a free port, once per test file (at the file's top level,
 * so the test sanitizers do not count it against a test). With
 * `SUTRA_TEST_SQS_ENDPOINT` set the tests use that endpoint instead (a
 * real SQS-compatible service; credentials from `SUTRA_TEST_SQS_ACCESS_KEY`
 * and `SUTRA_TEST_SQS_SECRET`, default `test`).
 *
 * The engines under test keep their state on the tier-2 PostgreSQL server,
 * so the tests are skipped with a notice without `SUTRA_TEST_DATABASE_URL`
 * (a failure under `SUTRA_TEST_REQUIRE_SERVICES=1`).
 *
 * Run as a program (`deno run -A tests/support/sqs.ts [port]`) this module
 * is the emulator's launcher: it listens on 127.0.0.1 (fauxqs's own command
 * line listens on every interface), prints `{"address": …}`, and exits when
 * its standard input closes, so a test process that dies takes it along.
 *
 * @module
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import assert from "node:assert/strict";
import {
  REQUIRE_SERVICES_ENV,
  serverDatabaseUrl,
  servicesRequired,
  TEST_DATABASE_URL_ENV,
} from "./test_database.ts";
import { takeUntil } from "./take_until.ts";
import { sealFixture } from "./fixture_package.ts";
import { SINGLETON_ORDERS } from "./broker_kill.ts";
import { startScript } from "./script_process.ts";

/** Variable naming an SQS endpoint to use instead of a fauxqs child. */
export const TEST_SQS_ENDPOINT_ENV = "SUTRA_TEST_SQS_ENDPOINT";

/** The endpoint named by the environment, if any. */
export function externalEndpoint(): string | undefined {
  return Deno.env.get(TEST_SQS_ENDPOINT_ENV)?.trim() || undefined;
}

/** True when the SQS tests run (the tier-2 database is there, or required). */
export function sqsTestsRun(): boolean {
  return serverDatabaseUrl() !== undefined || servicesRequired();
}

/** A fauxqs child process (or an external endpoint, which cannot be stopped). */
export class Fauxqs {
  private constructor(
    readonly endpoint: string,
    readonly port: number,
    private readonly child?: Deno.ChildProcess,
  ) {}

  /**
   * Starts fauxqs on `port` (0: a free one); with {@link TEST_SQS_ENDPOINT_ENV}
   * set (and `own` false), uses that endpoint instead.
   */
  static async start(port = 0, own = false): Promise<Fauxqs> {
    const external = own ? undefined : externalEndpoint();
    if (external) return new Fauxqs(external, Number(new URL(external).port));
    const child = startScript(import.meta.filename!, [String(port)]);
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`fauxqs exited before it listened: ${text}`);
      text += value;
    }
    await reader.cancel();
    const address = String(JSON.parse(text.split("\n")[0]).address);
    return new Fauxqs(address, Number(new URL(address).port), child);
  }

  /** True when this is a child this process can stop and restart. */
  get stoppable(): boolean {
    return this.child !== undefined;
  }

  /** Kills the child (SQS is gone, its queues and messages with it). */
  async stop(): Promise<void> {
    if (!this.child) return;
    await this.child.stdin.close().catch(() => {});
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.child.status;
  }

  /** A fresh fauxqs on the same port (after {@link stop}). */
  restart(): Promise<Fauxqs> {
    return Fauxqs.start(this.port, true);
  }
}

/**
 * The emulator for one test file, started at its top level when the tests
 * run (undefined otherwise); it ends with the test process.
 */
export async function fileFauxqs(): Promise<Fauxqs | undefined> {
  return sqsTestsRun() ? await Fauxqs.start() : undefined;
}

let noticePrinted = false;

/**
 * Registers a test that needs SQS and the tier-2 database (see the
 * module's documentation); `sqs` is what the test gets, undefined when the
 * tests do not run.
 */
export function sqsTest<T = Fauxqs>(
  name: string,
  sqs: T | undefined,
  fn: (sqs: T) => Promise<void>,
): void {
  if (!sqs && !servicesRequired()) {
    if (!noticePrinted) {
      noticePrinted = true;
      console.log(
        `notice: SQS tests are skipped because ${TEST_DATABASE_URL_ENV} is not set ` +
          `(${REQUIRE_SERVICES_ENV}=1 makes that a failure)`,
      );
    }
    Deno.test({ name, ignore: true, fn: () => {} });
    return;
  }
  Deno.test(name, async () => {
    if (sqs === undefined || !serverDatabaseUrl()) {
      throw new Error(`${TEST_DATABASE_URL_ENV} must be set under ${REQUIRE_SERVICES_ENV}=1`);
    }
    await fn(sqs);
  });
}

/** The environment an engine under test needs to reach `sqs`. */
export function sqsEnv(sqs: Fauxqs): Record<string, string> {
  return {
    [TEST_SQS_ENDPOINT_ENV]: sqs.endpoint,
    SUTRA_TEST_SQS_SECRET: Deno.env.get("SUTRA_TEST_SQS_SECRET") ?? "test",
  };
}

/** A unique queue prefix for one test. */
export function uniquePrefix(label: string): string {
  return `sutra-${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A received message: body, attributes as strings, system attributes. */
export interface Received {
  readonly body: string;
  readonly attributes: Record<string, string>;
  readonly system: Record<string, string>;
  readonly messageId: string;
}

/** What to send with a message. */
export interface SendOptions {
  readonly attributes?: Record<string, string>;
  /** FIFO: the message group. */
  readonly group?: string;
  /** FIFO: the deduplication id (default: a fresh one). */
  readonly dedup?: string;
}

/** A client on the test's SQS: queues, sending, taking, counting. */
export class SqsQueues {
  readonly client: SQSClient;
  readonly #urls = new Map<string, string>();

  constructor(endpoint: string) {
    this.client = new SQSClient({
      endpoint,
      region: "us-east-1",
      credentials: {
        accessKeyId: Deno.env.get("SUTRA_TEST_SQS_ACCESS_KEY") ?? "test",
        secretAccessKey: Deno.env.get("SUTRA_TEST_SQS_SECRET") ?? "test",
      },
      useQueueUrlAsEndpoint: false,
    });
  }

  /** Creates the queues (a `.fifo` name makes a FIFO queue). */
  async create(...names: string[]): Promise<void> {
    for (const name of names) {
      const fifo = name.endsWith(".fifo");
      const out = await this.client.send(
        new CreateQueueCommand({
          QueueName: name,
          ...(fifo ? { Attributes: { FifoQueue: "true" } } : {}),
        }),
      );
      this.#urls.set(name, out.QueueUrl!);
    }
  }

  /** A queue's URL. */
  async url(name: string): Promise<string> {
    let url = this.#urls.get(name);
    if (!url) {
      url = (await this.client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
      this.#urls.set(name, url);
    }
    return url;
  }

  /** Sends one message (JSON-encoded unless a string); answers its SQS message id. */
  async send(queue: string, body: unknown, o: SendOptions = {}): Promise<string> {
    const out = await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.url(queue),
        ...entry(body, o),
      }),
    );
    return out.MessageId!;
  }

  /** Sends many messages, ten per batch. */
  async sendMany(
    queue: string,
    messages: readonly { body: unknown; options?: SendOptions }[],
  ): Promise<void> {
    const url = await this.url(queue);
    for (let from = 0; from < messages.length; from += 10) {
      const batch = messages.slice(from, from + 10);
      const out = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: batch.map((m, n) => ({ Id: String(n), ...entry(m.body, m.options ?? {}) })),
        }),
      );
      assert.equal(out.Failed?.length ?? 0, 0, JSON.stringify(out.Failed));
    }
  }

  /** Takes (receives and deletes) every message now visible on `queue`. */
  async take(queue: string, visibilityTimeout = 30): Promise<Received[]> {
    const url = await this.url(queue);
    const out: Received[] = [];
    for (;;) {
      const got = await this.client.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: visibilityTimeout,
          MessageSystemAttributeNames: ["All"],
          MessageAttributeNames: ["All"],
        }),
      );
      const messages = got.Messages ?? [];
      if (messages.length === 0) return out;
      out.push(...messages.map(received));
      await this.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: messages.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  }

  /** Waits until `queue` has given `count` messages in all; answers them. */
  await(queue: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    return takeUntil(() => this.take(queue), { what: queue, count, timeoutMs, pollMs: 50 });
  }

  /** Messages on `queue`, visible and in flight. */
  async depth(queue: string): Promise<{ visible: number; inFlight: number }> {
    const out = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: await this.url(queue),
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      }),
    );
    return {
      visible: Number(out.Attributes?.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
    };
  }

  /** Deletes the queues (best effort). */
  async remove(queues: readonly string[]): Promise<void> {
    for (const q of queues) {
      await this.client.send(new DeleteQueueCommand({ QueueUrl: await this.url(q) }))
        .catch(() => {});
      this.#urls.delete(q);
    }
  }

  /** Deletes the queues (best effort) and closes the client. */
  async close(queues: readonly string[] = []): Promise<void> {
    await this.remove(queues);
    this.client.destroy();
  }
}

function entry(body: unknown, o: SendOptions) {
  const attributes: Record<string, MessageAttributeValue> = {
    "content-type": { DataType: "String", StringValue: "application/json" },
  };
  for (const [name, value] of Object.entries(o.attributes ?? {})) {
    attributes[name] = { DataType: "String", StringValue: value };
  }
  return {
    MessageBody: typeof body === "string" ? body : JSON.stringify(body),
    MessageAttributes: attributes,
    ...(o.group === undefined ? {} : {
      MessageGroupId: o.group,
      MessageDeduplicationId: o.dedup ?? crypto.randomUUID(),
    }),
  };
}

function received(m: Message): Received {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(m.MessageAttributes ?? {})) {
    if (value.StringValue !== undefined) attributes[name] = value.StringValue;
  }
  return {
    body: m.Body ?? "",
    attributes,
    system: { ...(m.Attributes ?? {}) } as Record<string, string>,
    messageId: m.MessageId!,
  };
}

/** Options for {@link sqsPackage}. */
export interface SqsPackageOptions {
  /** The unique queue prefix. */
  readonly prefix: string;
  readonly ackMode?: "on-persist" | "on-complete";
  /** The orders queue is FIFO (`<prefix>-orders.fifo`). */
  readonly fifo?: boolean;
  /** The orders channel's visibility timeout (default PT30S). */
  readonly visibility?: string;
  /** The orders channel's prefetch (default 10). */
  readonly prefetch?: number;
  /** The orders channel is `singleton: true`, with a two-second lease. */
  readonly singleton?: boolean;
}

/** The orders queue of the fixture. */
export function ordersQueue(o: Pick<SqsPackageOptions, "prefix" | "fifo">): string {
  return `${o.prefix}-orders${o.fifo ? ".fifo" : ""}`;
}

/** Every queue the fixture uses under `prefix` (dead-letter queues included). */
export function fixtureQueues(o: Pick<SqsPackageOptions, "prefix" | "fifo">): string[] {
  const orders = ordersQueue(o);
  const ordersDlq = o.fifo ? `${o.prefix}-orders-dlq.fifo` : `${orders}-dlq`;
  return [
    orders,
    ordersDlq,
    ...["decisions", "decisions-dlq", "confirmed"].map((q) => `${o.prefix}-${q}`),
  ];
}

/** The `sqs_channel` fixture package sealed for one test. */
export function sqsPackage(o: SqsPackageOptions): Promise<Uint8Array> {
  return sealFixture("sqs_channel", {
    ...(o.singleton ? SINGLETON_ORDERS : {}),
    "@ORDERS@": ordersQueue(o),
    "@Q@": o.prefix,
    "@ACK@": o.ackMode ?? "on-persist",
    "@VISIBILITY@": o.visibility ?? "PT30S",
    "@PREFETCH@": String(o.prefetch ?? 10),
  });
}

if (import.meta.main) {
  const { buildApp } = await import("fauxqs");
  const app = buildApp({ logger: false });
  const address = await app.listen({ port: Number(Deno.args[0] ?? 0), host: "127.0.0.1" });
  console.log(JSON.stringify({ address }));
  // The test process holds the other end of stdin: when it goes, so does the emulator.
  for await (const _ of Deno.stdin.readable) {
    // nothing is ever written
  }
  await app.close();
  Deno.exit(0);
}
