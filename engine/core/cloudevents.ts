/**
 * CloudEvents, both ways, for every transport and the engine.
 *
 * Inbound, structured mode: the event envelope arrives as the body and its
 * `data` (or `data_base64`) becomes the message; the attributes become
 * `ce-*` headers, as binary mode carries them natively, and the delivery is
 * marked with {@link CLOUDEVENTS_MODE_HEADER} so that a `match-inbound`
 * answer can tell the two apart.
 *
 * Outbound, {@link encodeCloudEvent} wraps a message: binary mode keeps the
 * body and adds the attributes as `ce-*` headers (a transport maps them to
 * its native properties); structured mode makes the body a JSON envelope
 * with content type `application/cloudevents+json`.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "./diagnostic.ts";
import type { InboundDelivery } from "./transport.ts";

/** How a CloudEvent travels. */
export type CloudEventMode = "binary" | "structured";

/** The header an unwrapped structured-mode delivery carries (value `structured`). */
export const CLOUDEVENTS_MODE_HEADER = "sutra-cloudevents-mode";

/** The content type of a structured-mode event. */
export const STRUCTURED_CONTENT_TYPE = "application/cloudevents+json";

const CE = /^ce-/i;

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
  const headers: Record<string, string> = {
    ...delivery.headers,
    [CLOUDEVENTS_MODE_HEADER]: "structured",
  };
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
  return { ...delivery, body, headers, contentType };
}

/** The mode a delivery arrived in: structured when unwrapped, binary when it has `ce-specversion`. */
export function inboundCloudEventMode(
  headers: Readonly<Record<string, string>> | undefined,
): CloudEventMode | undefined {
  if (!headers) return undefined;
  if (headers[CLOUDEVENTS_MODE_HEADER] === "structured") return "structured";
  return headers["ce-specversion"] !== undefined ? "binary" : undefined;
}

/** A message on its way out. */
export interface WireMessage {
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The attributes an event gets unless the message's own `ce-*` headers say otherwise. */
export interface CloudEventDefaults {
  readonly id: string;
  readonly source: string;
  readonly type: string;
  /** RFC 3339 timestamp. */
  readonly time?: string;
  readonly subject?: string;
}

function isJson(contentType: string): boolean {
  return /^application\/([\w.-]+\+)?json\b/i.test(contentType);
}

function isText(contentType: string): boolean {
  return /^text\//i.test(contentType) || /[/+](xml|yaml)\b/i.test(contentType);
}

/** The `data`/`data_base64` member of a structured envelope for a body of this content type. */
function dataMember(body: Uint8Array, contentType: string): Record<string, unknown> {
  if (isJson(contentType) || isText(contentType)) {
    const text = new TextDecoder("utf-8", { fatal: true });
    try {
      const decoded = text.decode(body);
      if (!isJson(contentType)) return { data: decoded };
      return { data: JSON.parse(decoded) };
    } catch {
      // Not the text or JSON it claims to be: carried as bytes, unchanged.
    }
  }
  let binary = "";
  for (const byte of body) binary += String.fromCharCode(byte);
  return { data_base64: btoa(binary) };
}

/**
 * `message` as a CloudEvent in `mode`. Its `ce-*` headers override the
 * defaults (a `q:header name="ce-type"` names the type); `specversion` is
 * 1.0 and `datacontenttype` the message's content type, which binary mode
 * carries as the content type itself.
 */
export function encodeCloudEvent(
  mode: CloudEventMode,
  message: WireMessage,
  defaults: CloudEventDefaults,
): WireMessage & { readonly contentType: string } {
  const contentType = message.contentType ?? "application/octet-stream";
  const attributes: Record<string, string> = { specversion: "1.0" };
  for (const [key, value] of Object.entries(defaults)) {
    if (value !== undefined) attributes[key] = value;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (CE.test(name)) attributes[name.slice(3).toLowerCase()] = value;
    else headers[name] = value;
  }
  delete attributes.datacontenttype;
  if (mode === "binary") {
    for (const [key, value] of Object.entries(attributes)) headers[`ce-${key}`] = value;
    return { body: message.body, contentType, headers };
  }
  const envelope = {
    ...attributes,
    datacontenttype: contentType,
    ...dataMember(message.body, contentType),
  };
  return {
    body: new TextEncoder().encode(JSON.stringify(envelope)),
    contentType: STRUCTURED_CONTENT_TYPE,
    headers,
  };
}
