/**
 * The HTTP transport: channels bound as `POST /channels/<name>` on the
 * engine's one listener, and an outbound sink for `http:`/`https:`
 * destinations. Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { httpTransport } from "./transport.ts";

if (!transports.has(httpTransport.name)) transports.register(httpTransport);

export { httpTransport };
