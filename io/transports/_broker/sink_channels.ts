/**
 * Which channel's settings a broker sink publishes with: the channel a
 * destination names (`?channel=<name>`, as replies do), else, when no
 * environment default is set, the first valid channel of the transport.
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";

/** The bound channel called `name`; undefined when `name` is or no such channel is bound. */
export function namedChannel(
  context: TransportContext,
  name: string | undefined,
): BoundChannel | undefined {
  return name === undefined
    ? undefined
    : context.channels().find((c) => c.declaration.name === name);
}

/**
 * The options of the first bound channel, by name, whose options are valid;
 * undefined when there is none. Sorting makes the choice the same on every
 * replica and every run.
 */
export function firstValidOptions<O>(
  context: TransportContext,
  read: (channel: BoundChannel) => { options: O; problems: readonly Diagnostic[] },
): O | undefined {
  const channels = [...context.channels()].sort((a, b) =>
    a.declaration.name.localeCompare(b.declaration.name)
  );
  for (const channel of channels) {
    const { options, problems } = read(channel);
    if (problems.length === 0) return options;
  }
  return undefined;
}
