import assert from "node:assert/strict";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { readOptions } from "./_options.ts";
import { amqp10Transport } from "./transport.ts";

function bound(options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    ackMode: "on-persist",
    declaration: { name: "orders", transport: "amqp10", options },
  };
}

Deno.test("amqp10 options: consume: false makes a send-only channel, even with an address", () => {
  const consumed = readOptions(bound({ url: "env:U", address: "/queue/orders" }));
  assert.ok("options" in consumed);
  assert.equal(consumed.options.consume, true);
  const sendOnly = readOptions(bound({ url: "env:U", address: "/queue/orders", consume: false }));
  assert.ok("options" in sendOnly);
  assert.equal(sendOnly.options.consume, false);
});

Deno.test("amqp10 options: consume must be true or false", () => {
  const read = readOptions(bound({ url: "env:U", consume: "no" }));
  assert.ok("problems" in read);
  assert.deepEqual(read.problems.map((p) => p.attributes?.option), ["consume"]);
});

Deno.test("amqp10 options: lint sees what the consumer would refuse", () => {
  const problems = amqp10Transport.checkOptions!({
    name: "orders",
    transport: "amqp10",
    options: { url: "env:U", prefetch: 0, typo: true },
  });
  assert.deepEqual(problems.map((p) => [p.code, p.attributes?.option]), [
    ["SUTRA.BROKER.OPTIONS_INVALID", "typo"],
    ["SUTRA.BROKER.OPTIONS_INVALID", "prefetch"],
  ]);
  assert.deepEqual(
    amqp10Transport.checkOptions!({ name: "o", transport: "amqp10", options: { url: "env:U" } }),
    [],
  );
});
