/**
 * The outbound HTTP sink: POSTs an outbox row to its destination with an
 * `Idempotency-Key` header that stays the same on every attempt.
 *
 * @module
 */
import type { OutboundMessage, Sink, SinkResult } from "../../../engine/core/transport.ts";
import { errorMessage } from "../../../engine/core/errors.ts";

// Answers a retry could change: timeouts, rate limits and server errors.
const TRANSIENT = new Set([408, 425, 429]);

/** A sink for `scheme` (`http` or `https`). */
export function httpSink(scheme: string): Sink {
  return {
    name: scheme,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const match = /^(?:([A-Z]+)\s+)?(\S+)$/.exec(message.destination.trim());
      if (!match) {
        return { outcome: "poison", error: `not an HTTP destination: ${message.destination}` };
      }
      const headers = new Headers(message.headers);
      if (message.contentType) headers.set("content-type", message.contentType);
      headers.set("idempotency-key", message.idempotencyKey);
      try {
        const response = await fetch(match[2], {
          method: match[1] ?? "POST",
          headers,
          body: message.body.slice(),
          signal: AbortSignal.timeout(30_000),
        });
        await response.body?.cancel();
        if (response.ok) return { outcome: "delivered" };
        const error = `HTTP ${response.status} from ${match[2]}`;
        return response.status >= 500 || TRANSIENT.has(response.status)
          ? { outcome: "retry", error }
          : { outcome: "poison", error };
      } catch (error) {
        return { outcome: "retry", error: errorMessage(error) };
      }
    },
  };
}
