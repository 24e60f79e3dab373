/**
 * The `kafka` transport. Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { kafkaTransport } from "./transport.ts";

if (!transports.has(kafkaTransport.name)) transports.register(kafkaTransport);

export { kafkaTransport };
export { KAFKA_SCHEME, kafkaSink, parseDestination } from "./sink.ts";
export { KAFKA_OPTION_KEYS, type KafkaChannelOptions, readKafkaOptions } from "./options.ts";
export { SOURCE_HEADERS } from "./consumer.ts";
export { IDEMPOTENCY_HEADER, KEY_HEADER } from "./_kafka.ts";
