/**
 * The `rabbitmq` transport (AMQP 0-9-1). Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { rabbitmqTransport } from "./transport.ts";

if (!transports.has(rabbitmqTransport.name)) transports.register(rabbitmqTransport);

export { rabbitmqTransport };
export { parseDestination, RABBITMQ_SCHEME, RabbitPublisher, rabbitSink } from "./sink.ts";
export { type RabbitChannelOptions, RABBITMQ_OPTION_KEYS, readRabbitOptions } from "./options.ts";
