import assert from "node:assert/strict";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { testContext } from "./_test_context.ts";
import { brokerTransport } from "./broker_transport.ts";
import { type BrokerChannelOptions, OptionReader } from "./options.ts";

function channelOf(name: string, options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    declaration: { name, transport: "test", bind: `test://${name}`, options },
    ackMode: "on-persist",
  };
}

Deno.test("a consume: false channel gets no consumer; the others do", async () => {
  const events: string[] = [];
  const factory = brokerTransport<BrokerChannelOptions>({
    name: "test",
    readOptions: (channel) => {
      const r = new OptionReader(channel.declaration.name, channel.declaration.options);
      return { options: { consume: r.consume() }, problems: r.problems };
    },
    consumer: ({ channel }) => ({
      start: () => void events.push(`start ${channel.declaration.name}`),
      stop: () => Promise.resolve(void events.push(`stop ${channel.declaration.name}`)),
    }),
    sink: () => ({
      name: "test",
      send: () => Promise.resolve({ outcome: "delivered" }),
      close() {},
    }),
  });
  // Channels are opened in order: once `in` started, `out` has had its turn.
  const instance = await factory.spawn(
    testContext([channelOf("out", { consume: false }), channelOf("in", { consume: true })]),
  );
  for (let i = 0; i < 200 && events.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await instance.stop?.();
  assert.deepEqual(events, ["start in", "stop in"]);
});

Deno.test("consume must be true or false", () => {
  const r = new OptionReader("c", { consume: "no" });
  assert.equal(r.consume(), true);
  assert.deepEqual(r.problems.map((p) => [p.code, p.attributes?.option]), [
    ["SUTRA.BROKER.OPTIONS_INVALID", "consume"],
  ]);
});
