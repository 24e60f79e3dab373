/**
 * The `pubsub` transport (Google Cloud Pub/Sub on `npm:@google-cloud/pubsub`).
 * Each channel declared `transport: pubsub` gets a streaming-pull consumer
 * on its subscription (`consumer.ts`), started and stopped as deployments
 * come and go; a `singleton: true` channel consumes only on the replica
 * holding its lease. Outbound, the `pubsub://` sink publishes (`sink.ts`).
 * See docs/transports.md.
 *
 * @module
 */
import type { TransportFactory } from "../../../engine/core/transport.ts";
import { brokerTransport } from "../_broker/mod.ts";
import { PubSubConsumer } from "./consumer.ts";
import { readPubSubOptions } from "./options.ts";
import { pubsubSink } from "./sink.ts";

/** The pubsub transport factory. */
export const pubsubTransport: TransportFactory = brokerTransport({
  name: "pubsub",
  readOptions: readPubSubOptions,
  consumer: ({ context, channel, options }) =>
    new PubSubConsumer({ context, channel, options, logger: context.logger }),
  sink: pubsubSink,
});
