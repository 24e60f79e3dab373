import assert from "node:assert/strict";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { readOptions } from "./_options.ts";

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
