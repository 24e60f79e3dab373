/**
 * The sqs transport with the engine as a real child process, against the
 * fauxqs emulator: an engine killed with SIGKILL in the middle of 1,000
 * messages and restarted applies each message exactly once and leaves
 * nothing undeleted. The messages the killed engine held come back when
 * their visibility timeout runs out; inbox dedup answers the ones whose
 * step had committed.
 */
import assert from "node:assert/strict";
import { until } from "../runtime/support.ts";
import { KILL_COUNT, killMidStream, singletonTakeover } from "../support/broker_kill.ts";
import {
  fileFauxqs,
  fixtureQueues,
  ordersQueue,
  sqsEnv,
  sqsPackage,
  SqsQueues,
  sqsTest,
  uniquePrefix,
} from "../support/sqs.ts";

const sqs = await fileFauxqs();

sqsTest(
  "sqs: an engine killed mid-stream applies every message exactly once after restart",
  sqs,
  async (sqs) => {
    const prefix = uniquePrefix("sigkill");
    const layout = { prefix, visibility: "PT5S", prefetch: 32 } as const;
    const queues = new SqsQueues(sqs.endpoint);
    const names = fixtureQueues(layout);
    const orders = ordersQueue(layout);
    const confirmedKeys = new Set<string>();
    const confirmedOrders = new Set<string>();
    try {
      await queues.create(...names);
      await killMidStream({
        env: sqsEnv(sqs),
        package: () => sqsPackage(layout),
        send: (ids) => queues.sendMany(orders, ids.map((orderId) => ({ body: { orderId } }))),
        settle: async () => {
          // Every order is deleted: none left visible, none held.
          await until(async () => {
            const depth = await queues.depth(orders);
            return depth.visible === 0 && depth.inFlight === 0;
          }, 60_000);
          // Every order is confirmed; a copy re-sent after the kill carries the same key.
          await until(async () => {
            for (const m of await queues.take(`${prefix}-confirmed`)) {
              confirmedKeys.add(m.attributes["idempotency-key"]);
              confirmedOrders.add(JSON.parse(m.body).orderId);
            }
            return confirmedKeys.size >= KILL_COUNT;
          }, 60_000);
        },
        verify: async () => {
          assert.deepEqual(await queues.take(orders), []);
          assert.deepEqual(await queues.take(`${prefix}-orders-dlq`), []);
          assert.equal(confirmedKeys.size, KILL_COUNT);
          assert.equal(confirmedOrders.size, KILL_COUNT);
        },
      });
    } finally {
      await queues.close(names);
    }
  },
);

sqsTest(
  "sqs singleton: one consumer across two engines; the survivor takes over",
  sqs,
  async (sqs) => {
    const prefix = uniquePrefix("singleton");
    const layout = { prefix, singleton: true } as const;
    const queues = new SqsQueues(sqs.endpoint);
    const names = fixtureQueues(layout);
    try {
      await queues.create(...names);
      await singletonTakeover({
        env: sqsEnv(sqs),
        package: () => sqsPackage(layout),
        send: (orderId) => queues.send(ordersQueue(layout), { orderId }),
        confirmed: async () =>
          (await queues.take(`${prefix}-confirmed`)).map((m) => JSON.parse(m.body).orderId),
      });
    } finally {
      await queues.close(names);
    }
  },
);
