/**
 * Shared by the authoring commands' tests: a catalogue of every transport
 * name the examples' channels ride, so a test does not depend on which
 * transports this build links today.
 *
 * @module
 */
import { type TransportCatalog, transportCatalog } from "../engine/package/mod.ts";

/** Every transport name the project ships. */
export const everyTransport: TransportCatalog = transportCatalog([
  "amqp10",
  "file",
  "http",
  "kafka",
  "local",
  "pubsub",
  "pull",
  "rabbitmq",
  "sqs",
]);
