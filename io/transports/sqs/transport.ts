/**
 * The `sqs` transport (Amazon SQS on `npm:@aws-sdk/client-sqs`). Each
 * channel declared `transport: sqs` gets a consumer on its queue
 * (`consumer.ts`), started and stopped as deployments come and go; a
 * `singleton: true` channel consumes only on the replica holding its lease.
 * Outbound, the `sqs://` sink sends through the outbox (`sink.ts`). See
 * docs/transports.md.
 *
 * @module
 */
import type { TransportFactory } from "../../../engine/core/transport.ts";
import { brokerTransport } from "../_broker/mod.ts";
import { ChannelConsumer } from "./consumer.ts";
import { readSqsOptions } from "./options.ts";
import { sqsSink } from "./sink.ts";

/** The sqs transport factory. */
export const sqsTransport: TransportFactory = brokerTransport({
  name: "sqs",
  readOptions: readSqsOptions,
  consumer: ({ context, channel, options }) =>
    new ChannelConsumer({ context, channel, options, logger: context.logger }),
  sink: sqsSink,
});
