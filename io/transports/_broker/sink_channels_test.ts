import assert from "node:assert/strict";
import { createLogger } from "../../../engine/core/log.ts";
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { firstValidOptions, namedChannel } from "./sink_channels.ts";

function channelOf(name: string, url?: string): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    declaration: { name, transport: "test", bind: `test://${name}`, options: url ? { url } : {} },
    ackMode: "on-persist",
  };
}

function contextOf(channels: BoundChannel[]): TransportContext {
  return {
    channels: () => channels,
    deliver: () => Promise.reject(new Error("no delivery in these tests")),
    http: { add: () => {} },
    logger: createLogger("test", { write: () => {} }),
    resolveSecret: (reference) => Promise.resolve(reference),
    payloadCapBytes: 1_024,
    ackHoldMs: 1_000,
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
  const context = contextOf([
    channelOf("orders", "amqp://orders"),
    channelOf("audit"),
    channelOf("billing", "amqp://billing"),
  ]);
  assert.deepEqual(firstValidOptions(context, readUrl), { url: "amqp://billing" });
});

Deno.test("firstValidOptions: none when no channel is valid", () => {
  assert.equal(firstValidOptions(contextOf([channelOf("audit")]), readUrl), undefined);
});

Deno.test("namedChannel: the channel a destination names, if bound", () => {
  const context = contextOf([channelOf("orders"), channelOf("audit")]);
  assert.equal(namedChannel(context, "audit")?.declaration.name, "audit");
  assert.equal(namedChannel(context, "missing"), undefined);
  assert.equal(namedChannel(context, undefined), undefined);
});
