/**
 * The amqp10 sink against RabbitMQ's AMQP 1.0 plugin (tier 2): a row is
 * delivered only once the broker accepted the message; an address the
 * broker refuses stays a retry, under the same message-id, until it works.
 */
import assert from "node:assert/strict";
import type { BoundChannel, TransportContext } from "../../engine/core/transport.ts";
import { amqp10Sink, ConnectionPool } from "../../io/transports/amqp10/_sink.ts";
import { Amqp10Client, amqp10Test, Broker, textOf, uniquePrefix } from "../support/amqp10.ts";

amqp10Test(
  "amqp10 sink: delivered only after the broker accepted; a refused address is retried",
  async (url) => {
    const q = uniquePrefix("a10-sink");
    const channel: BoundChannel = {
      tenant: "t",
      deploymentId: "d",
      declaration: { name: "out", transport: "amqp10", options: { url: "env:X" } },
      ackMode: "on-persist",
    };
    const context = {
      channels: () => [channel],
      resolveSecret: () => Promise.resolve(url),
    } as unknown as TransportContext;
    const logger = { warn: () => {} } as unknown as TransportContext["logger"];
    const pool = new ConnectionPool();
    const sink = amqp10Sink(context, pool, logger);
    const broker = await Broker.open(url);
    const client = await Amqp10Client.open(url);
    try {
      const message = {
        destination: `amqp10://out/queue/${q}`,
        headers: { "correlation-id": "c-1", "x-a": "b" },
        body: new TextEncoder().encode('{"n":1}'),
        contentType: "application/json",
        idempotencyKey: `k-${q}`,
        attempt: 1,
      };
      // RabbitMQ 3.10 refuses a durable link to an existing queue that is not durable.
      await broker.channel.assertQueue(q, { durable: false });
      const refused = await sink.send(message);
      assert.equal(refused.outcome, "retry");
      assert.match((refused as { error: string }).error, /SUTRA\.BROKER\.PUBLISH_FAILED.*durable/);
      await broker.channel.deleteQueue(q);
      await broker.queue(q);
      assert.deepEqual(await sink.send({ ...message, attempt: 2 }), { outcome: "delivered" });
      const [sent] = await client.take(`/queue/${q}`, 1);
      assert.equal(textOf(sent), '{"n":1}');
      assert.equal(sent.message_id, `k-${q}`);
      assert.equal(sent.correlation_id, "c-1");
      assert.equal(sent.application_properties?.["x-a"], "b");
      assert.equal(await broker.ready(q), 0);
    } finally {
      await pool.close();
      await client.close();
      await broker.close([q]);
    }
  },
);
