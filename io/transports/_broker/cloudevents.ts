/**
 * CloudEvents over a broker. Binary mode carries the event attributes as
 * message headers / application properties; inbound, every spelling in use
 * (`ce-id`, `ce_id`, `cloudEvents_id`, `cloudEvents:id`) becomes the
 * delivery header `ce-id`, as on HTTP. Outbound, the engine's `ce-*`
 * headers are written with the prefix the broker's binding uses (AMQP:
 * `cloudEvents_`). Structured mode (an `application/cloudevents+json`
 * body) is unwrapped by the engine's shared unwrapping, as on HTTP.
 *
 * @module
 */

export { unwrapCloudEvent } from "../../../engine/core/cloudevents.ts";

const INBOUND_PREFIX = /^(?:ce[-_]|cloudevents[_:])/i;

/** The delivery header for a broker header name: `ce-<attr>` for a CloudEvents attribute, else lower case. */
export function inboundHeaderName(name: string): string {
  const lower = name.toLowerCase();
  return INBOUND_PREFIX.test(lower) ? `ce-${lower.replace(INBOUND_PREFIX, "")}` : lower;
}

/** The broker header for an outbound header: `ce-<attr>` gets `prefix`, others pass as they are. */
export function outboundHeaderName(name: string, prefix = "cloudEvents_"): string {
  return /^ce-/i.test(name) ? `${prefix}${name.slice(3)}` : name;
}

/** True when a content type announces a structured-mode CloudEvent. */
export function isStructuredCloudEvent(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith("application/cloudevents+json") ?? false;
}
