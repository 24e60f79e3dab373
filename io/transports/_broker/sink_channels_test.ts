import assert from "node:assert/strict";
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { testContext } from "./_test_context.ts";
import { firstValidOptions, namedChannel } from "./sink_channels.ts";

function channelOf(name: string, url?: string): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    declaration: { name, transport: "test", bind: `test://${name}`, options: url ? { url } : {} },
    ackMode: "on-persist",
  };
}

/** Options valid only with a `url`. */
function readUrl(channel: BoundChannel) {
  const url = channel.declaration.options?.["url"] as string | undefined;
  return url
    ? { options: { url }, problems: [] }
    : { options: { url: "" }, problems: [diagnostic("SUTRA.BROKER.OPTIONS_INVALID", "no url")] };
}

Deno.test("firstValidOptions: the first valid channel by name, whatever the bound order", () => {
  const context = testContext([
    channelOf("orders", "amqp://orders"),
    channelOf("audit"),
    channelOf("billing", "amqp://billing"),
  ]);
  assert.deepEqual(firstValidOptions(context, readUrl), { url: "amqp://billing" });
});

Deno.test("firstValidOptions: none when no channel is valid", () => {
  assert.equal(firstValidOptions(testContext([channelOf("audit")]), readUrl), undefined);
});

Deno.test("namedChannel: the channel a destination names, if bound", () => {
  const context = testContext([channelOf("orders"), channelOf("audit")]);
  assert.equal(namedChannel(context, "audit")?.declaration.name, "audit");
  assert.equal(namedChannel(context, "missing"), undefined);
  assert.equal(namedChannel(context, undefined), undefined);
});
