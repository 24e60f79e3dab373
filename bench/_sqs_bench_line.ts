/**
 * The sqs line of `bench:transports`: messages per second the `sqs`
 * transport carries from the queue to a completed instance (an on-persist
 * channel whose process starts and ends at once, retention PT0S), beside a
 * raw `@aws-sdk/client-sqs` receive+delete loop with as many messages in
 * hand, on the same SQS endpoint. Both queues are preloaded with the same N
 * JSON messages before their consumer starts; each clock starts when SQS
 * sees its consumer take messages and stops when every message has run
 * (the engine's inbox) or been deleted (the raw loop). The endpoint is the
 * fauxqs emulator (started for the run) unless one is given.
 *
 * ```ts
 * import { sqsBenchLine } from "./_sqs_bench_line.ts";
 * const { raw, engine } = await sqsBenchLine({ messages, prefetch, database });
 * lines.rate("raw client-sqs receive+delete", raw);
 * lines.rate("sqs on-persist stateless", engine);
 * ```
 *
 * @module
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import "../io/transports/sqs/mod.ts";
import { sqsClient } from "../io/transports/sqs/_client.ts";
import { Fauxqs } from "../tests/support/sqs.ts";
import { channelRate, firstTaken } from "./_support.ts";

/** Options for {@link sqsBenchLine}. */
export interface SqsBenchOptions {
  /** An SQS endpoint; without it a fauxqs emulator is started for the run. */
  readonly endpoint?: string;
  readonly messages: number;
  /** Messages in hand at most, for both consumers. */
  readonly prefetch: number;
  /** A PostgreSQL server URL for the engine's state; in-memory PGlite without it. */
  readonly database?: string;
}

/** The two rates, messages per second. */
export interface SqsBenchRates {
  readonly raw: number;
  readonly engine: number;
}

const CREDENTIALS = { accessKeyId: "bench", secretAccessKey: "bench" } as const;
/** Messages of the untimed raw round before the timed lines. */
const WARM_UP = 2000;

/** Runs the raw loop, then the engine, on two fresh queues; deletes the queues afterwards. */
export async function sqsBenchLine(o: SqsBenchOptions): Promise<SqsBenchRates> {
  const emulator = o.endpoint === undefined ? await Fauxqs.start() : undefined;
  const endpoint = o.endpoint ?? emulator!.endpoint;
  const client = sqsClient({ endpoint, region: "us-east-1", credentials: CREDENTIALS });
  const tag = crypto.randomUUID().slice(0, 8);
  const urls: string[] = [];
  try {
    // The SDK's code is cold in a new process: without this untimed round the raw loop would pay
    // for its compilation and the engine line, which runs after it, would not.
    const warmUrl = await createQueue(client, `sutra-bench-sqs-warm-${tag}`, urls);
    await preload(client, warmUrl, WARM_UP);
    await rawLoop(client, warmUrl, { ...o, messages: WARM_UP });
    const rawUrl = await createQueue(client, `sutra-bench-sqs-raw-${tag}`, urls);
    await preload(client, rawUrl, o.messages);
    const raw = await rawLoop(client, rawUrl, o);
    const engineQueue = `sutra-bench-sqs-engine-${tag}`;
    const engineUrl = await createQueue(client, engineQueue, urls);
    await preload(client, engineUrl, o.messages);
    const engine = await engineLoop(client, o, endpoint, { name: engineQueue, url: engineUrl });
    return { raw, engine };
  } finally {
    for (const url of urls) await client.send(new DeleteQueueCommand({ QueueUrl: url }));
    client.destroy();
    await emulator?.stop();
  }
}

async function createQueue(client: SQSClient, name: string, urls: string[]): Promise<string> {
  const url = (await client.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  urls.push(url);
  return url;
}

/** Sends `n` JSON messages, ten per batch, eight batches at a time. */
async function preload(client: SQSClient, url: string, n: number): Promise<void> {
  const batches: number[] = [];
  for (let from = 0; from < n; from += 10) batches.push(from);
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches.slice(i, i + 8).map(async (from) => {
        const out = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: Array.from({ length: Math.min(10, n - from) }, (_, k) => ({
              Id: String(k),
              MessageBody: JSON.stringify({ n: from + k }),
              MessageAttributes: {
                "content-type": { DataType: "String", StringValue: "application/json" },
              },
            })),
          }),
        );
        if ((out.Failed?.length ?? 0) > 0) throw new Error(`preloading ${url}: a send failed`);
      }),
    );
  }
}

/**
 * The raw client, shaped as the transport: one long-poll receiver keeping
 * at most `prefetch` messages in hand, the messages of each receive deleted
 * together with one `DeleteMessageBatch` (up to ten, as the transport
 * batches its deletes).
 */
async function rawLoop(client: SQSClient, url: string, o: SqsBenchOptions): Promise<number> {
  let first = 0;
  let received = 0;
  let inHand = 0;
  const deleting = new Set<Promise<unknown>>();
  while (received < o.messages) {
    while (inHand >= o.prefetch) await Promise.race(deleting);
    const got = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: Math.min(10, o.prefetch - inHand),
        WaitTimeSeconds: 1,
      }),
    );
    const taken = got.Messages ?? [];
    if (taken.length === 0) continue;
    if (first === 0) first = performance.now();
    received += taken.length;
    inHand += taken.length;
    const deleted = client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: taken.map((m, n) => ({ Id: String(n), ReceiptHandle: m.ReceiptHandle })),
      }),
    ).then((out) => {
      if ((out.Failed?.length ?? 0) > 0) throw new Error(`deleting from ${url}: an entry failed`);
    }).finally(() => {
      inHand -= taken.length;
      deleting.delete(deleted);
    });
    deleting.add(deleted);
  }
  await Promise.all(deleting);
  return o.messages / ((performance.now() - first) / 1000);
}

/**
 * The engine: deploy, then time the preloaded queue from the moment SQS
 * sees its consumer take messages to the moment every one has run.
 */
async function engineLoop(
  client: SQSClient,
  o: SqsBenchOptions,
  endpoint: string,
  queue: { name: string; url: string },
): Promise<number> {
  const visible = async () =>
    Number(
      (await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queue.url,
          AttributeNames: ["ApproximateNumberOfMessages"],
        }),
      )).Attributes?.ApproximateNumberOfMessages ?? 0,
    );
  return await channelRate({
    module: "sqs-bench",
    channel: {
      name: "bench-sqs",
      transport: "sqs",
      options: {
        queue: queue.name,
        endpoint: "env:SUTRA_BENCH_SQS_ENDPOINT",
        "access-key-id": CREDENTIALS.accessKeyId,
        "secret-access-key": "env:SUTRA_BENCH_SQS_SECRET",
        prefetch: o.prefetch,
        "wait-time": "PT1S",
      },
    },
    messages: o.messages,
    ...(o.database ? { database: o.database } : {}),
    env: {
      SUTRA_BENCH_SQS_ENDPOINT: endpoint,
      SUTRA_BENCH_SQS_SECRET: CREDENTIALS.secretAccessKey,
    },
    clock: firstTaken(visible, o.messages),
  });
}
