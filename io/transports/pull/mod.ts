/**
 * The pull transport (external tasks). Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { pullTransport } from "./transport.ts";

if (!transports.has(pullTransport.name)) transports.register(pullTransport);

export { pullTransport };
export { pullSink } from "./sink.ts";
