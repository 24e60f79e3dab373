/**
 * The `file` transport: channels fed from a watched directory, and an
 * outbound `file://<dir>` sink that writes each row atomically. No network
 * use at all. Importing this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { fileTransport } from "./transport.ts";

if (!transports.has(fileTransport.name)) transports.register(fileTransport);

export { fileTransport };
export { FILE_NAME_HEADER } from "./consumer.ts";
export {
  contentTypeOf,
  type FileChannelOptions,
  fileChannelOptions,
  isPartialName,
} from "./options.ts";
export { FILE_SCHEME, fileSink, sinkDirectory, sinkFileName } from "./sink.ts";
