/**
 * The pubsub line of `bench:transports`: messages per second the `pubsub`
 * transport carries from a subscription to a completed instance (an
 * on-persist channel whose process starts and ends at once, retention
 * PT0S), beside a raw `@google-cloud/pubsub` streaming-pull + ack loop on a
 * subscription of the same shape with the same flow-control window. Both
 * subscriptions are preloaded with the same N JSON messages before their
 * consumer starts.
 *
 * No Pub/Sub server runs here: both loops talk to the Pub/Sub test double
 * (`tests/support/pubsub_server/`, gRPC over loopback, in this process — it
 * shares the CPU with both loops alike), or to the emulator named by
 * `SUTRA_TEST_PUBSUB_EMULATOR_HOST`.
 *
 * The client acknowledges in batches every 100 ms and the service hands a
 * stream no more than its flow-control window of unacknowledged messages,
 * so a window of W caps either loop near 10·W messages per second: give it
 * a window of a few hundred, or the raw loop measures that cap.
 *
 * ```ts
 * import { pubsubBenchLine } from "./_pubsub_bench_line.ts";
 * const { raw, engine } = await pubsubBenchLine({ messages, maxMessages, database });
 * lines.rate("raw pubsub streaming pull+ack", raw);
 * lines.rate("pubsub on-persist stateless", engine);
 * ```
 *
 * @module
 */
import { Duration, type Message } from "@google-cloud/pubsub";
import {
  openPubSub,
  PubSubPeer,
  type PubSubTarget,
  TEST_PROJECT,
} from "../tests/support/pubsub_server/mod.ts";
import { channelRate } from "./_support.ts";

/** Options for {@link pubsubBenchLine}. */
export interface PubSubBenchOptions {
  readonly messages: number;
  /** Flow control (messages in hand) for both consumers. */
  readonly maxMessages: number;
  /** A PostgreSQL server URL for the engine's state; in-memory PGlite without it. */
  readonly database?: string;
}

/** The two rates, messages per second. */
export interface PubSubBenchRates {
  readonly raw: number;
  readonly engine: number;
}

/** Runs the raw loop, then the engine, on two fresh topics and subscriptions. */
export async function pubsubBenchLine(o: PubSubBenchOptions): Promise<PubSubBenchRates> {
  const tag = crypto.randomUUID().slice(0, 8);
  const target = await openPubSub();
  const peer = new PubSubPeer(target);
  try {
    const rawTopic = `sutra-bench-raw-${tag}`;
    await preload(peer, rawTopic, o.messages);
    const raw = await rawLoop(peer, o, rawTopic);
    const engineTopic = `sutra-bench-engine-${tag}`;
    await preload(peer, engineTopic, o.messages);
    const engine = await engineLoop(target, o, engineTopic);
    return { raw, engine };
  } finally {
    await peer.close();
    await target.close();
  }
}

/** Creates `topic` and its subscription `<topic>-sub`, then publishes `n` JSON messages. */
async function preload(peer: PubSubPeer, topic: string, n: number): Promise<void> {
  await peer.topics(topic);
  await peer.subscription(`${topic}-sub`, topic);
  const window = 1_000;
  for (let from = 0; from < n; from += window) {
    const bodies = Array.from({ length: Math.min(window, n - from) }, (_, i) => ({ n: from + i }));
    await peer.publishMany(topic, bodies);
  }
}

/** The raw client: streaming pull, ack every message as it arrives. */
async function rawLoop(peer: PubSubPeer, o: PubSubBenchOptions, topic: string): Promise<number> {
  const deadline = Duration.from({ seconds: 60 });
  const subscription = peer.client.subscription(`${topic}-sub`, {
    minAckDeadline: deadline,
    maxAckDeadline: deadline,
    flowControl: { maxMessages: o.maxMessages, allowExcessMessages: false },
  });
  let first = 0;
  let seen = 0;
  try {
    const last = await new Promise<number>((resolve, reject) => {
      subscription.on("error", reject);
      subscription.on("message", (message: Message) => {
        if (seen === 0) first = performance.now();
        message.ack();
        if (++seen === o.messages) resolve(performance.now());
      });
    });
    return (o.messages - 1) / ((last - first) / 1000);
  } finally {
    await subscription.close();
  }
}

/** The engine: deploy, then time the preloaded subscription from the first capture to the last run. */
async function engineLoop(
  target: PubSubTarget,
  o: PubSubBenchOptions,
  topic: string,
): Promise<number> {
  return await channelRate({
    module: "pubsub-bench",
    channel: {
      name: "bench-pubsub",
      transport: "pubsub",
      options: {
        project: TEST_PROJECT,
        endpoint: target.host,
        topic,
        subscription: `${topic}-sub`,
        "max-messages": o.maxMessages,
      },
    },
    messages: o.messages,
    ...(o.database ? { database: o.database } : {}),
    // The service hands out a whole window before the engine's first commit, so a poll
    // cannot see the first capture: the inbox's own receipt times bound the run instead.
    clock: async (engine) => {
      for (;;) {
        const { ran, seconds } = (await engine.database.query<{ ran: number; seconds: number }>(
          `select (count(*) filter (where event_id not like '@%' and state = 'done'))::int as ran,
                  extract(epoch from clock_timestamp() - min(received_at))::float8 as seconds
             from inbox`,
        )).rows[0];
        if (ran >= o.messages) return o.messages / seconds;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  });
}
