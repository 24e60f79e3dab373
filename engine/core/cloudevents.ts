/**
 * CloudEvents structured mode: the event envelope arrives as the body and
 * its `data` (or `data_base64`) becomes the message; the attributes become
 * `ce-*` headers, as binary mode carries them natively.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "./diagnostic.ts";
import type { InboundDelivery } from "./transport.ts";

/** The message inside a structured CloudEvent, or why there is none. */
export function unwrapCloudEvent(delivery: InboundDelivery): InboundDelivery | Diagnostic {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(new TextDecoder().decode(delivery.body));
  } catch {
    event = {};
  }
  if (typeof event !== "object" || event === null || typeof event.specversion !== "string") {
    return diagnostic(
      "SUTRA.INBOUND.CLOUDEVENT.INVALID",
      "a structured-mode channel expects a JSON CloudEvent with specversion",
      { attributes: { channel: delivery.channel } },
    );
  }
  const headers: Record<string, string> = { ...delivery.headers };
  for (const [key, value] of Object.entries(event)) {
    if (key !== "data" && key !== "data_base64" && typeof value === "string") {
      headers[`ce-${key}`] = value;
    }
  }
  const body = typeof event.data_base64 === "string"
    ? Uint8Array.from(atob(event.data_base64), (c) => c.charCodeAt(0))
    : new TextEncoder().encode(
      typeof event.data === "string" ? event.data : JSON.stringify(event.data ?? null),
    );
  const contentType = typeof event.datacontenttype === "string"
    ? event.datacontenttype
    : "application/json";
  return { channel: delivery.channel, body, headers, contentType };
}
