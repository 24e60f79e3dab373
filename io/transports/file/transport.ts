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
  TransportInstance,
} from "../../../engine/core/transport.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { FileConsumer } from "./consumer.ts";
import { fileChannelOptions } from "./options.ts";
import { FILE_SCHEME, fileSink } from "./sink.ts";

/** How often the transport looks for channels that came or went with a deploy. */
const RECONCILE_MS = 200;

/** Keeps one consumer per bound channel declaration. */
class FileChannels implements TransportInstance {
  readonly #context: TransportContext;
  readonly #consumers = new Map<BoundChannel["declaration"], Promise<FileConsumer | undefined>>();
  readonly #reported = new WeakSet<BoundChannel["declaration"]>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #reconciling: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(context: TransportContext) {
    this.#context = context;
    this.#tick();
  }

  #tick(): void {
    this.#reconciling = this.#reconcile().finally(() => {
      if (!this.#stopped) this.#timer = setTimeout(() => this.#tick(), RECONCILE_MS);
    });
  }

  async #reconcile(): Promise<void> {
    const bound = new Map(this.#context.channels().map((c) => [c.declaration, c]));
    for (const [declaration, consumer] of this.#consumers) {
      if (bound.has(declaration)) continue;
      this.#consumers.delete(declaration);
      await (await consumer)?.stop();
    }
    for (const [declaration, channel] of bound) {
      if (this.#consumers.has(declaration) || this.#stopped) continue;
      const started = this.#start(channel);
      this.#consumers.set(declaration, started);
      await started;
    }
  }

  async #start(channel: BoundChannel): Promise<FileConsumer | undefined> {
    const declaration = channel.declaration;
    const options = fileChannelOptions(declaration);
    if (Array.isArray(options)) {
      if (!this.#reported.has(declaration)) {
        this.#reported.add(declaration);
        for (const problem of options) {
          this.#context.logger.error(problem.message, {
            code: problem.code,
            channel: declaration.name,
          });
        }
      }
      return undefined;
    }
    try {
      return await FileConsumer.start(this.#context, channel, options);
    } catch (error) {
      // Forgotten, so the next reconcile tries again (the directory may appear).
      this.#consumers.delete(declaration);
      this.#context.logger.error("a file channel's folders cannot be opened", {
        code: "SUTRA.FILE.DIRECTORY_UNAVAILABLE",
        channel: declaration.name,
        directory: options.directory,
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#reconciling;
    const consumers = [...this.#consumers.values()];
    this.#consumers.clear();
    for (const consumer of consumers) await (await consumer)?.stop();
  }
}

/** The file transport factory. */
export const fileTransport: TransportFactory = {
  name: "file",
  handlesOnComplete: true,
  defaultAckMode: "on-complete",
  spawn: (context) => new FileChannels(context),
  registerSinks(sinks: Registry<Sink>) {
    if (!sinks.has(FILE_SCHEME)) sinks.register(fileSink);
  },
};
