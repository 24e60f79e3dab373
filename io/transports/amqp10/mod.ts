/**
 * The `amqp10` transport: AMQP 1.0 channels (RabbitMQ's AMQP 1.0 plugin,
 * ActiveMQ Artemis, Azure Service Bus, Qpid …) through `rhea`, and the
 * `amqp10:` outbound sink. Importing this module registers it.
 *
 * `rhea` reads its `DEBUG` settings from the environment when it is first
 * imported (through `debug`): run the engine with `--allow-env=<names>`
 * plus `--ignore-env` so the rest of the environment stays unread.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { amqp10Transport } from "./transport.ts";

if (!transports.has(amqp10Transport.name)) transports.register(amqp10Transport);

export { amqp10Transport };
export { AMQP10_SCHEME, parseDestination } from "./_sink.ts";
export { REFUSED_CONDITION } from "./_consumer.ts";
export { CLOUDEVENTS_PREFIX } from "./_message.ts";
