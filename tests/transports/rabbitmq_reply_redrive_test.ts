/**
 * A reply route survives its replica (tier 2, the real broker): an
 * on-persist message with a `reply-to`, captured by a replica that died
 * before running it, is redriven from the table by another engine and
 * still answers on its reply queue with its correlation id.
 */
import assert from "node:assert/strict";
import { bootEngine, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import { storeCaptures } from "../../engine/runtime/dispatch/inbox.ts";
import { replyDestination } from "../../io/transports/rabbitmq/sink.ts";
import {
  Broker,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";

rabbitTest(
  "rabbitmq reply-to: a capture redriven by another engine still answers on its reply queue",
  async (url) => {
    const q = uniquePrefix("redrive-reply");
    const replies = `${q}.replies`;
    const broker = await Broker.open(url);
    for (const name of [...fixtureQueues(q), replies]) await broker.queue(name);
    try {
      await withServerDatabase(async (db, target) => {
        const engine = await bootEngine({
          url: target.url,
          schema: target.schema,
          env: {
            SUTRA_TEST_RABBITMQ_URL: url,
            SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.1S",
            SUTRA_INBOX_REDRIVE_AFTER: "PT0.1S",
          },
        });
        try {
          await engine.deployments.deploy(await rabbitPackage({ prefix: q }));
          // What the dead replica left: the message captured (and so acknowledged), never run.
          const channel = "rq-orders";
          const stored = await storeCaptures(db, [{
            tenant: "default",
            eventId: "@m-r9",
            delivery: {
              channel,
              body: new TextEncoder().encode(JSON.stringify({ orderId: "r9" })),
              contentType: "application/json",
              headers: { "message-id": "m-r9", "correlation-id": "corr-9" },
              idempotencyKey: "m-r9",
              replyTo: {
                destination: replyDestination(replies, channel),
                headers: { "correlation-id": "corr-9" },
              },
            },
          }]);
          assert.equal(stored.size, 1);
          const [reply] = await broker.await(replies, 1);
          assert.deepEqual(JSON.parse(reply.body), { orderId: "r9", accepted: true });
          assert.equal(reply.properties.correlationId, "corr-9");
          // Run once: the capture is done and keeps neither the message nor its route.
          await until(async () => {
            const { rows } = await db.query<{ state: string; reply_to: unknown }>(
              "select state, reply_to from inbox where event_id = '@m-r9'",
            );
            return rows[0]?.state === "done" && rows[0].reply_to === null;
          });
          assert.deepEqual(await broker.take(replies), []);
        } finally {
          await engine.stop();
        }
      });
    } finally {
      await broker.channel.deleteQueue(replies).catch(() => {});
      await broker.close(fixtureQueues(q));
    }
  },
);
