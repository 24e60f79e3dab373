/**
 * The `file` transport factory: one {@link FileConsumer} per bound file
 * channel (following deploys), and the `file://` sink. It opens no socket:
 * this is the transport of an engine without a network.
 *
 * @module
 */
import type { Registry } from "../../../engine/core/registry.ts";
import type {
  BoundChannel,
  Sink,
  TransportContext,
  TransportFactory,
} from "../../../engine/core/transport.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { ChannelConsumers, type ReportOnce } from "../_broker/mod.ts";
import { FileConsumer } from "./consumer.ts";
import { fileChannelOptions } from "./options.ts";
import { FILE_SCHEME, fileSink } from "./sink.ts";

/** How often the transport looks for channels that came or went with a deploy. */
const RECONCILE_MS = 200;

/**
 * A consumer for `channel`, or undefined: its options are wrong (reported
 * once), or its folders cannot be opened (reported on every pass, since
 * the next pass tries again: the directory may appear).
 */
async function openConsumer(
  context: TransportContext,
  channel: BoundChannel,
  reportOnce: ReportOnce,
): Promise<FileConsumer | undefined> {
  const declaration = channel.declaration;
  const options = fileChannelOptions(declaration);
  if (Array.isArray(options)) {
    reportOnce(() => {
      for (const problem of options) {
        context.logger.error(problem.message, { code: problem.code, channel: declaration.name });
      }
    });
    return undefined;
  }
  try {
    return await FileConsumer.start(context, channel, options);
  } catch (error) {
    context.logger.error("a file channel's folders cannot be opened", {
      code: "SUTRA.FILE.DIRECTORY_UNAVAILABLE",
      channel: declaration.name,
      directory: options.directory,
      error: errorMessage(error),
    });
    return undefined;
  }
}

/** The file transport factory. */
export const fileTransport: TransportFactory = {
  name: "file",
  handlesOnComplete: true,
  defaultAckMode: "on-complete",
  spawn: (context) =>
    new ChannelConsumers({
      context,
      transport: "file",
      intervalMs: RECONCILE_MS,
      // One consumer per declaration object: each deploy brings its own.
      identity: (channel) => channel.declaration,
      open: (channel, reportOnce) => openConsumer(context, channel, reportOnce),
    }),
  registerSinks(sinks: Registry<Sink>) {
    if (!sinks.has(FILE_SCHEME)) sinks.register(fileSink);
  },
};
