import assert from "node:assert/strict";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { readRabbitOptions } from "./options.ts";
import { parseDestination } from "./sink.ts";

function bound(options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    ackMode: "on-persist",
    declaration: { name: "orders", transport: "rabbitmq", options },
  };
}

Deno.test("rabbitmq options: defaults follow the channel", () => {
  const { options, problems } = readRabbitOptions(bound({ url: "env:RABBIT_URL" }));
  assert.deepEqual(problems, []);
  assert.equal(options.queue, "orders");
  assert.equal(options.deadLetterQueue, "orders.dlq");
  assert.equal(options.deadLetterExchange, "");
  assert.equal(options.maxDeliveries, 5);
  assert.equal(options.prefetch, 32);
  assert.equal(options.idempotencyHeader, "message-id");
  assert.equal(options.leaseTtlMs, 30_000);
});

Deno.test("rabbitmq options: every wrong key is named, a literal password refused", () => {
  const { problems } = readRabbitOptions(bound({
    url: "amqp://guest:guest@host:5672",
    prefetch: 0,
    "max-deliveries": "3",
    "queue-type": "stream",
    "lease-ttl": "soon",
    "dead-letter": "x",
  }));
  assert.ok(problems.every((p) => p.code === "SUTRA.BROKER.OPTIONS_INVALID"));
  const named = problems.map((p) => p.attributes?.option).sort();
  assert.deepEqual(named, [
    "dead-letter",
    "lease-ttl",
    "max-deliveries",
    "prefetch",
    "queue-type",
    "url",
  ]);
});

Deno.test("rabbitmq options: the url is required", () => {
  const { problems } = readRabbitOptions(bound({}));
  assert.deepEqual(problems.map((p) => p.attributes?.option), ["url"]);
});

Deno.test("rabbitmq destinations: exchange and routing key, the default exchange when empty", () => {
  assert.deepEqual(parseDestination("rabbitmq://events/order.created"), {
    exchange: "events",
    routingKey: "order.created",
  });
  assert.deepEqual(parseDestination("rabbitmq:///replies"), {
    exchange: "",
    routingKey: "replies",
  });
  assert.deepEqual(parseDestination("rabbitmq://fanout"), { exchange: "fanout", routingKey: "" });
  assert.equal(parseDestination("http://x/y"), undefined);
  assert.equal(parseDestination("rabbitmq://bad%zz/k"), undefined);
});

Deno.test("rabbitmq options: consume: false makes a send-only channel", () => {
  assert.equal(readRabbitOptions(bound({ url: "env:RABBIT_URL" })).options.consume, true);
  const { options, problems } = readRabbitOptions(bound({ url: "env:RABBIT_URL", consume: false }));
  assert.deepEqual(problems, []);
  assert.equal(options.consume, false);
});
