/**
 * The two outbox answers every broker sink gives in the same words: a
 * destination it cannot parse is poison (retrying cannot fix it), a publish
 * the broker did not accept is retried.
 *
 * @module
 */
import { errorMessage } from "../../../engine/core/errors.ts";
import type { SinkResult } from "../../../engine/core/transport.ts";

/** Poison: `destination` does not have the sink's `shape` (e.g. `kafka://<topic>`). */
export function destinationInvalid(destination: string, shape: string): SinkResult {
  return {
    outcome: "poison",
    error: `SUTRA.BROKER.DESTINATION_INVALID: '${destination}' is not ${shape}`,
  };
}

/** Retry: the broker did not accept the message for `destination`. */
export function publishFailed(error: unknown, destination: string): SinkResult {
  return {
    outcome: "retry",
    error: `SUTRA.BROKER.PUBLISH_FAILED: ${errorMessage(error)} (${destination})`,
  };
}
