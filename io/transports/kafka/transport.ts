/**
 * The `kafka` transport (on `npm:kafkajs`). Each channel declared
 * `transport: kafka` gets a consumer in its own consumer group
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its
 * lease. Outbound, the `kafka://` sink publishes with acks=all on the
 * idempotent producer (`sink.ts`). See docs/transports.md.
 *
 * @module
 */
import type { TransportFactory } from "../../../engine/core/transport.ts";
import { brokerTransport } from "../_broker/mod.ts";
import { ChannelConsumer } from "./consumer.ts";
import { readKafkaOptions } from "./options.ts";
import { kafkaSink } from "./sink.ts";

/** The kafka transport factory. */
export const kafkaTransport: TransportFactory = brokerTransport({
  name: "kafka",
  readOptions: readKafkaOptions,
  // An outbound-only channel: its topic is written to, never read back into the engine.
  consumer: ({ context, channel, options }) =>
    new ChannelConsumer({ context, channel, options, logger: context.logger }),
  sink: kafkaSink,
});
