/**
 * Tenant quotas on a broker (RabbitMQ, tier 2): a message that would start
 * an instance past the tenant's `maxConcurrentInstances` is held for the
 * refusal's Retry-After and given back to the queue, again on each
 * redelivery, until the channel's redelivery budget dead-letters it with
 * the quota's code; once an instance ends, the next message starts one.
 */
import assert from "node:assert/strict";
import { instanceStatuses, until } from "./support.ts";
import { withDeployedServerEngine } from "../support/broker_kill.ts";
import {
  Broker,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";

rabbitTest(
  "a broker message past a tenant's concurrency cap is requeued, then runs once a slot frees",
  async (url) => {
    const q = uniquePrefix("quota");
    const broker = await Broker.open(url);
    for (const name of fixtureQueues(q)) await broker.queue(name);
    try {
      const sealed = await rabbitPackage({ prefix: q, ackMode: "on-persist" });
      const env = { SUTRA_TEST_RABBITMQ_URL: url, SUTRA_TENANT_MAX_CONCURRENT_INSTANCES: "test=1" };
      await withDeployedServerEngine(env, sealed, async (engine) => {
        await broker.send(`${q}.orders`, { orderId: "first", hold: true }, {
          messageId: "m-first",
        });
        await broker.await(`${q}.confirmed`, 1);
        await broker.send(`${q}.orders`, { orderId: "second", hold: true }, {
          messageId: "m-second",
        });
        // The fixture's orders channel allows 3 deliveries: refused, held and requeued twice, then parked.
        const [dead] = await broker.await(`${q}.orders.dlq`, 1, 30_000);
        assert.equal(JSON.parse(dead.body).orderId, "second");
        assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
        const why = String(dead.headers["sutra-diagnostic-message"]);
        assert.match(why, /delivered 3 time\(s\)/);
        assert.match(why, /SUTRA\.INBOUND\.TENANT_CONCURRENCY_LIMIT/);
        assert.deepEqual(await broker.take(`${q}.confirmed`), []);

        await broker.send(`${q}.decisions`, { orderId: "first", ok: true }, {
          messageId: "d-first",
        });
        await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
        await broker.send(`${q}.orders`, { orderId: "third", hold: true }, {
          messageId: "m-third",
        });
        const [started] = await broker.await(`${q}.confirmed`, 1);
        assert.equal(JSON.parse(started.body).orderId, "third");
      });
    } finally {
      await broker.close(fixtureQueues(q));
    }
  },
);
