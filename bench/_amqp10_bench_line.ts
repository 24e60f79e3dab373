/**
 * The amqp10 line of `bench:transports`: messages per second the `amqp10`
 * transport carries from RabbitMQ's AMQP 1.0 plugin to a completed
 * instance (an on-persist channel whose process starts and ends at once,
 * retention PT0S), beside a raw `rhea` receive+accept loop on a queue of
 * the same shape with the same link credit. Both queues are preloaded with
 * the same N durable JSON messages before their consumer starts.
 *
 * ```ts
 * import { amqp10BenchLine } from "./_amqp10_bench_line.ts";
 * const { raw, engine } = await amqp10BenchLine({ brokerUrl, messages, prefetch, database });
 * lines.rate("raw rhea receive+accept", raw);
 * lines.rate("amqp10 on-persist stateless", engine);
 * ```
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { Buffer } from "node:buffer";
import rhea from "rhea";
import type { EventContext, Message } from "rhea";
import { Amqp10Connection } from "../io/transports/amqp10/_connection.ts";
import { channelRate, firstTaken } from "./_support.ts";

/** Options for {@link amqp10BenchLine}. */
export interface Amqp10BenchOptions {
  /** The broker (`amqp://guest:guest@127.0.0.1:5672`). */
  readonly brokerUrl: string;
  readonly messages: number;
  /** Link credit for both consumers. */
  readonly prefetch: number;
  /** A PostgreSQL server URL for the engine's state; in-memory PGlite without it. */
  readonly database?: string;
}

/** The two rates, messages per second. */
export interface Amqp10BenchRates {
  readonly raw: number;
  readonly engine: number;
}

/** Runs the raw loop, then the engine, on two fresh queues; deletes the queues afterwards. */
export async function amqp10BenchLine(o: Amqp10BenchOptions): Promise<Amqp10BenchRates> {
  const tag = crypto.randomUUID().slice(0, 8);
  const rawAddress = `/queue/sutra-bench-a10-raw-${tag}`;
  const engineAddress = `/queue/sutra-bench-a10-engine-${tag}`;
  const client = await Amqp10Connection.open(o.brokerUrl);
  try {
    await preload(client, rawAddress, o.messages);
    const raw = await rawLoop(o, rawAddress);
    await preload(client, engineAddress, o.messages);
    const engine = await engineLoop(o, engineAddress);
    return { raw, engine };
  } finally {
    await client.close();
    await deleteQueues(o.brokerUrl, [rawAddress, engineAddress]);
  }
}

/** Sends `n` durable JSON messages to `address`, all of them accepted. */
async function preload(client: Amqp10Connection, address: string, n: number): Promise<void> {
  const window = 500;
  for (let from = 0; from < n; from += window) {
    const sends: Promise<unknown>[] = [];
    for (let i = from; i < Math.min(n, from + window); i++) {
      const message: Message = {
        body: rhea.message.data_section(Buffer.from(JSON.stringify({ n: i }))),
        content_type: "application/json",
        message_id: `m-${i}`,
        durable: true,
      };
      sends.push(client.send(address, message));
    }
    const outcomes = await Promise.all(sends);
    if (outcomes.some((x) => (x as { kind: string }).kind !== "accepted")) {
      throw new Error(`preloading ${address}: a message was not accepted`);
    }
  }
}

/** The raw client: receive and accept every preloaded message, credit given back one by one. */
async function rawLoop(o: Amqp10BenchOptions, address: string): Promise<number> {
  const connection = await Amqp10Connection.open(o.brokerUrl);
  try {
    const receiver = connection.receiver({
      source: { address, durable: 2 },
      autoaccept: false,
      credit_window: 0,
    });
    receiver.once("receiver_open", () => receiver.add_credit(o.prefetch));
    let first = 0;
    let seen = 0;
    const last = await new Promise<number>((resolve) => {
      receiver.on("message", (event: EventContext) => {
        if (seen === 0) first = performance.now();
        event.delivery!.accept();
        receiver.add_credit(1);
        if (++seen === o.messages) resolve(performance.now());
      });
    });
    return (o.messages - 1) / ((last - first) / 1000);
  } finally {
    await connection.close();
  }
}

/** The engine: deploy, then time the preloaded queue from the first capture to the last run. */
async function engineLoop(o: Amqp10BenchOptions, address: string): Promise<number> {
  const admin = await amqp.connect(o.brokerUrl);
  try {
    const queue = queueOf(address);
    const probe = await admin.createChannel();
    return await channelRate({
      module: "amqp10-bench",
      channel: {
        name: "bench-a10",
        transport: "amqp10",
        options: { url: "env:SUTRA_BENCH_AMQP10_URL", address, prefetch: o.prefetch },
      },
      messages: o.messages,
      ...(o.database ? { database: o.database } : {}),
      env: { SUTRA_BENCH_AMQP10_URL: o.brokerUrl },
      clock: firstTaken(async () => (await probe.checkQueue(queue)).messageCount, o.messages),
    });
  } finally {
    await admin.close();
  }
}

/** The queue an AMQP 1.0 `/queue/<name>` address names. */
function queueOf(address: string): string {
  return address.replace(/^\/queue\//, "");
}

/** Deletes the bench queues through the 0-9-1 client (AMQP 1.0 has no queue management). */
async function deleteQueues(brokerUrl: string, addresses: readonly string[]): Promise<void> {
  const connection = await amqp.connect(brokerUrl);
  try {
    const channel = await connection.createChannel();
    for (const a of addresses) await channel.deleteQueue(queueOf(a));
  } finally {
    await connection.close();
  }
}
