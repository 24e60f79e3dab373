/**
 * The `pubsub_channel` fixture package for the pubsub transport's tests,
 * sealed for one test's topics, and an in-process engine serving it.
 *
 * @module
 */
import type { RunningEngine } from "../../../engine/runtime/mod.ts";
import { readPubSubOptions } from "../../../io/transports/pubsub/mod.ts";
import { declareTopology } from "../../../io/transports/pubsub/consumer.ts";
import { bootEngine } from "../../runtime/support.ts";
import { type ServerSchema, withServerDatabase } from "../test_database.ts";
import { openPubSub, PubSubPeer, type PubSubTarget, TEST_PROJECT, uniqueName } from "./mod.ts";
import { sealFixture } from "../fixture_package.ts";
import { SINGLETON_ORDERS } from "../broker_kill.ts";

/** Options for {@link pubsubPackage}. */
export interface PubSubPackageOptions {
  /** The unique topic prefix. */
  readonly prefix: string;
  readonly ackMode?: "on-persist" | "on-complete";
  /** The orders channel is `singleton: true`, with a two-second lease. */
  readonly singleton?: boolean;
}

/** The `pubsub_channel` fixture package sealed for one test. */
export function pubsubPackage(o: PubSubPackageOptions): Promise<Uint8Array> {
  return sealFixture("pubsub_channel", {
    ...(o.singleton ? SINGLETON_ORDERS : {}),
    "@T@": o.prefix,
    "@ACK@": o.ackMode ?? "on-persist",
  });
}

/** The fixture's topic and subscription ids under one prefix. */
export interface FixtureTopics {
  readonly orders: string;
  readonly ordersSub: string;
  readonly ordersDlq: string;
  readonly decisions: string;
  readonly decisionsSub: string;
  readonly decisionsDlq: string;
  readonly confirmed: string;
  /** The test's reading subscriptions. */
  readonly read: {
    readonly confirmed: string;
    readonly ordersDlq: string;
    readonly decisionsDlq: string;
  };
}

/** The fixture's topics under `prefix`, and the test's reading subscriptions on them. */
export function fixtureTopics(prefix: string): FixtureTopics {
  return {
    orders: `${prefix}-orders`,
    ordersSub: `${prefix}-orders-sub`,
    ordersDlq: `${prefix}-orders-sub-dlq`,
    decisions: `${prefix}-decisions`,
    decisionsSub: `${prefix}-decisions-sub`,
    decisionsDlq: `${prefix}-decisions-sub-dlq`,
    confirmed: `${prefix}-confirmed`,
    read: {
      confirmed: `${prefix}-confirmed-read`,
      ordersDlq: `${prefix}-orders-dlq-read`,
      decisionsDlq: `${prefix}-decisions-dlq-read`,
    },
  };
}

/**
 * Creates the fixture's topics and subscriptions as its channels declare
 * them (a message published before a subscription exists is not delivered
 * to it, so a test cannot wait for the engine to create them), and the
 * test's reading subscriptions.
 */
export async function prepareTopics(peer: PubSubPeer, prefix: string): Promise<void> {
  const t = fixtureTopics(prefix);
  const declared = (name: string, options: Record<string, unknown>) =>
    readPubSubOptions({
      tenant: "test",
      deploymentId: "fixture",
      ackMode: "on-persist",
      declaration: { name, transport: "pubsub", options },
    }).options;
  await declareTopology(
    peer.client,
    TEST_PROJECT,
    declared("ps-orders", {
      topic: t.orders,
      subscription: t.ordersSub,
      ordering: true,
      "max-deliveries": 3,
      "ack-deadline": "PT10S",
    }),
  );
  await declareTopology(
    peer.client,
    TEST_PROJECT,
    declared("ps-decisions", {
      topic: t.decisions,
      subscription: t.decisionsSub,
      "max-deliveries": 2,
    }),
  );
  await peer.topics(t.confirmed);
  await peer.subscription(t.read.confirmed, t.confirmed);
  await peer.subscription(t.read.ordersDlq, t.ordersDlq);
  await peer.subscription(t.read.decisionsDlq, t.decisionsDlq);
}

/** The engine environment that points the pubsub transport at `target`. */
export function pubsubEnv(target: PubSubTarget): Record<string, string> {
  return { PUBSUB_EMULATOR_HOST: target.host, PUBSUB_PROJECT_ID: TEST_PROJECT };
}

/** What {@link withPubSubEngine} hands a test. */
export interface PubSubEngineContext {
  readonly engine: RunningEngine;
  readonly peer: PubSubPeer;
  readonly target: PubSubTarget;
  readonly topics: FixtureTopics;
  readonly db: ServerSchema;
}

/**
 * Opens Pub/Sub (the double unless an emulator is configured; with
 * `ownProcess`, the double in a process of its own), boots an engine on a
 * fresh tier-2 schema with the fixture deployed, runs `run`, and stops
 * everything.
 */
export async function withPubSubEngine(
  label: string,
  options: Omit<PubSubPackageOptions, "prefix"> & { readonly ownProcess?: boolean },
  run: (ctx: PubSubEngineContext) => Promise<void>,
): Promise<void> {
  const prefix = uniqueName(label);
  const { ownProcess, ...packageOptions } = options;
  const target = await openPubSub({ ownProcess });
  const peer = new PubSubPeer(target);
  try {
    await prepareTopics(peer, prefix);
    await withServerDatabase(async (_db, db) => {
      const engine = await bootEngine({ url: db.url, schema: db.schema, env: pubsubEnv(target) });
      try {
        await engine.deployments.deploy(await pubsubPackage({ prefix, ...packageOptions }));
        await run({ engine, peer, target, topics: fixtureTopics(prefix), db });
      } finally {
        await engine.stop();
      }
    });
  } finally {
    await peer.close();
    await target.close();
  }
}
