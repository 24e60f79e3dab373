/**
 * The `local` transport (in-process handoff between co-deployed
 * processes). Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { localTransport } from "./transport.ts";

if (!transports.has(localTransport.name)) transports.register(localTransport);

export { localTransport };
export { localAddress, localSink, sinkResultOf } from "./transport.ts";
