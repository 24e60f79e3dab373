/**
 * The transports this distribution links. Each registers itself on import;
 * the composition root imports this module.
 *
 * @module
 */
import "./amqp10/mod.ts";
import "./file/mod.ts";
import "./http/mod.ts";
import "./kafka/mod.ts";
import "./local/mod.ts";
import "./pubsub/mod.ts";
import "./pull/mod.ts";
import "./rabbitmq/mod.ts";
import "./sqs/mod.ts";
