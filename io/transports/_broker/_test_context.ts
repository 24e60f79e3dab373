/**
 * A transport context for the broker layer's unit tests: it serves the
 * given channels, resolves every secret reference to itself, logs nothing
 * and refuses deliveries.
 *
 * @module
 */
import { createLogger } from "../../../engine/core/log.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";

/** A context serving `channels`, with no delivery path. */
export function testContext(channels: BoundChannel[]): TransportContext {
  return {
    channels: () => channels,
    deliver: () => Promise.reject(new Error("no delivery in these tests")),
    http: { add: () => {} },
    logger: createLogger("test", { write: () => {} }),
    resolveSecret: (reference) => Promise.resolve(reference),
    payloadCapBytes: 1_024,
    ackHoldMs: 1_000,
  };
}
