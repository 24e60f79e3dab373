/**
 * The `rabbitmq` transport (AMQP 0-9-1 on `npm:amqplib`). Each channel
 * declared `transport: rabbitmq` gets a consumer on its queue
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its lease.
 * Outbound, the `rabbitmq://` sink publishes with confirms (`sink.ts`).
 * See docs/transports.md.
 *
 * @module
 */
import type { TransportFactory } from "../../../engine/core/transport.ts";
import { brokerTransport } from "../_broker/mod.ts";
import { ChannelConsumer } from "./consumer.ts";
import { readRabbitOptions } from "./options.ts";
import { rabbitSink } from "./sink.ts";

/** The rabbitmq transport factory. */
export const rabbitmqTransport: TransportFactory = brokerTransport({
  name: "rabbitmq",
  readOptions: readRabbitOptions,
  consumer: ({ context, channel, options }) =>
    new ChannelConsumer({ context, channel, options, logger: context.logger }),
  sink: rabbitSink,
});
