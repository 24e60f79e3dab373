/**
 * The `pubsub` transport (Google Cloud Pub/Sub). Importing this module
 * registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { pubsubTransport } from "./transport.ts";

if (!transports.has(pubsubTransport.name)) transports.register(pubsubTransport);

export { pubsubTransport };
export { parseDestination, PUBSUB_SCHEME, pubsubSink } from "./sink.ts";
export { PUBSUB_OPTION_KEYS, type PubSubChannelOptions, readPubSubOptions } from "./options.ts";
export { IDEMPOTENCY_ATTRIBUTE, ORDERING_KEY_HEADER } from "./_client.ts";
