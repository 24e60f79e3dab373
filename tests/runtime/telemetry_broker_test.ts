/**
 * Trace context through a real broker (tier 2, RabbitMQ): an order
 * published with a `traceparent` AMQP header continues that trace in the
 * engine, and the confirmation the engine publishes carries the
 * `traceparent` of its own `sutra.outbox.send` span, in the same trace.
 */
import assert from "node:assert/strict";
import { startOtlpReceiver } from "../support/otlp_receiver.ts";
import {
  Broker,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";
import { withServerDatabase } from "../support/test_database.ts";
import { until } from "./support.ts";
import { tracedEngine } from "./telemetry_support.ts";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

rabbitTest(
  "rabbitmq: a message's trace continues from its headers and leaves with the send",
  (url) =>
    withServerDatabase(async (_, { url: dbUrl, schema }) => {
      await using receiver = startOtlpReceiver();
      const q = uniquePrefix("trace");
      const broker = await Broker.open(url);
      const engine = await tracedEngine(receiver.url, {
        SUTRA_DATASOURCE_URL: dbUrl,
        SUTRA_DATASOURCE_SCHEMA: schema,
        SUTRA_TEST_RABBITMQ_URL: url,
      });
      try {
        await engine.deployments.deploy(await rabbitPackage({ prefix: q }));
        for (const queue of fixtureQueues(q)) await broker.queue(queue);
        await broker.send(`${q}.orders`, { orderId: "R-1" }, {
          messageId: "m-1",
          headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
        });
        const [confirmed] = await broker.await(`${q}.confirmed`, 1);
        const sent = String(confirmed.headers.traceparent);
        const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(sent) ?? [];
        assert.equal(traceId, CALLER_TRACE, sent);
        await until(() => Promise.resolve(receiver.spans().some((s) => s.spanId === spanId)));
        const spans = receiver.spans().filter((s) => s.traceId === CALLER_TRACE);
        const send = spans.find((s) => s.spanId === spanId)!;
        assert.equal(send.name, "sutra.outbox.send");
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        // Up from the send: its commit, the run, and the delivery the broker handed in.
        const chain: string[] = [];
        for (let s = send; s; s = byId.get(s.parentSpanId ?? "")!) chain.push(s.name);
        assert.equal(chain.at(-1), "sutra.dispatch");
        assert.ok(chain.includes("sutra.commit"), chain.join(" < "));
        const root = spans.find((s) =>
          s.name === "sutra.dispatch" && s.parentSpanId === CALLER_SPAN
        );
        assert.ok(root, "the first dispatch continues the publisher's span");
        assert.equal(root.attributes["sutra.channel"], "rq-orders");
      } finally {
        await engine.stop();
        await broker.close(fixtureQueues(q));
      }
    }),
);
