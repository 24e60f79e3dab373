import assert from "node:assert/strict";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { amqp10Sink, ConnectionPool, parseDestination } from "./_sink.ts";

Deno.test("destinations name the channel whose connection to use and, optionally, an address", () => {
  assert.deepEqual(parseDestination("amqp10://orders"), { channel: "orders" });
  assert.deepEqual(parseDestination("amqp10://orders/queue/replies"), {
    channel: "orders",
    address: "/queue/replies",
  });
  assert.deepEqual(parseDestination("amqp10:///queue/x"), { channel: "", address: "/queue/x" });
  assert.equal(parseDestination("amqp10://"), undefined);
  assert.equal(parseDestination("amqp10:/queue/x"), undefined);
  assert.equal(parseDestination("rabbitmq://x/y"), undefined);
});

function channel(name: string, options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    declaration: { name, transport: "amqp10", options },
    ackMode: "on-persist",
  };
}

function sinkOver(channels: BoundChannel[]) {
  const context = {
    channels: () => channels,
    resolveSecret: (reference: string) => Promise.resolve(reference),
  } as unknown as TransportContext;
  const logger = { warn: () => {} } as unknown as TransportContext["logger"];
  return amqp10Sink(context, new ConnectionPool(), logger);
}

const message = (destination: string) => ({
  destination,
  headers: {},
  body: new Uint8Array(),
  idempotencyKey: "k",
  attempt: 1,
});

Deno.test("a destination no active channel serves waits; one that can never go anywhere is poison", async () => {
  const a = channel("a", { url: "amqp://h1", address: "/queue/a" });
  const b = channel("b", { url: "amqp://h2" });
  const none = await sinkOver([a]).send(message("amqp10://missing"));
  assert.equal(none.outcome, "retry");
  assert.match((none as { error: string }).error, /SUTRA\.AMQP10\.NO_CONNECTION/);
  const ambiguous = await sinkOver([a, b]).send(message("amqp10:///queue/x"));
  assert.equal(ambiguous.outcome, "poison");
  assert.match((ambiguous as { error: string }).error, /SUTRA\.AMQP10\.DESTINATION_INVALID/);
  const addressless = await sinkOver([a, b]).send(message("amqp10://b"));
  assert.equal(addressless.outcome, "poison");
  const malformed = await sinkOver([a]).send(message("amqp10:nothing"));
  assert.equal(malformed.outcome, "poison");
});
