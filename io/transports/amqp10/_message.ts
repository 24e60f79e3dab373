/**
 * AMQP 1.0 messages ⇄ the engine's deliveries. Inbound, the bare message's
 * properties and application properties become lower-case headers
 * (CloudEvents attributes in every spelling become `ce-*`), the body
 * section becomes bytes and `content-type` picks the codec as on HTTP.
 * Outbound, the engine's headers become application properties, with the
 * few that AMQP carries as message properties (`correlation-id`,
 * `reply-to`, `subject`) moved there, and `ce-*` written with the AMQP
 * binding's `cloudEvents:` prefix.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import rhea from "rhea";
import type { Message } from "rhea";
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";
import type { InboundDelivery, OutboundMessage } from "../../../engine/core/transport.ts";
import {
  addHeaders,
  headerText,
  isStructuredCloudEvent,
  outboundHeaderName,
  unwrapCloudEvent,
} from "../_broker/mod.ts";
import type { IdempotencySource } from "./_options.ts";

// AMQP section type codes (the bare message's body).
const DATA = 0x75;
const SEQUENCE = 0x76;

/** The AMQP CloudEvents binding's application-property prefix for binary mode. */
export const CLOUDEVENTS_PREFIX = "cloudEvents:";

// Message properties that become headers, AMQP name → header name.
const PROPERTY_HEADERS: ReadonlyArray<readonly [keyof Message & string, string]> = [
  ["message_id", "message-id"],
  ["correlation_id", "correlation-id"],
  ["reply_to", "reply-to"],
  ["subject", "subject"],
  ["to", "to"],
  ["user_id", "user-id"],
  ["group_id", "group-id"],
  ["group_sequence", "group-sequence"],
  ["reply_to_group_id", "reply-to-group-id"],
  ["content_type", "content-type"],
  ["content_encoding", "content-encoding"],
  ["creation_time", "creation-time"],
  ["absolute_expiry_time", "absolute-expiry-time"],
];

// Headers the outbound side carries as message properties, header name → AMQP name.
const OUTBOUND_PROPERTIES: Readonly<Record<string, "correlation_id" | "reply_to" | "subject">> = {
  "correlation-id": "correlation_id",
  "reply-to": "reply_to",
  "subject": "subject",
};
// Set from the outbound message itself, never from a header of the same name.
const OWN_PROPERTIES = new Set(["message-id", "content-type"]);

interface Section {
  readonly typecode: number;
  readonly content: unknown;
}

function isSection(value: unknown): value is Section {
  return typeof value === "object" && value !== null && "typecode" in value && "content" in value;
}

/** The body's bytes, or undefined for a body the engine cannot read as one payload. */
export function bodyBytes(body: unknown): Uint8Array | undefined {
  if (body === undefined || body === null) return new Uint8Array();
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (isSection(body)) {
    if (body.typecode === DATA && body.content instanceof Uint8Array) return body.content;
    if (body.typecode === SEQUENCE) return undefined;
    return bodyBytes(body.content);
  }
  if (Array.isArray(body) && body.length > 0 && body.every(isSection)) {
    const parts = body.map((s) => s.typecode === DATA ? s.content : undefined);
    if (!parts.every((p): p is Uint8Array => p instanceof Uint8Array)) return undefined;
    return new Uint8Array(Buffer.concat(parts));
  }
  // An amqp-value map, list or number: its JSON rendering.
  try {
    return new TextEncoder().encode(JSON.stringify(body));
  } catch {
    return undefined;
  }
}

/** What {@link inboundOf} needs to know about the channel. */
export interface InboundChannel {
  readonly name: string;
  readonly idempotency: IdempotencySource;
  readonly cloudeventsMode?: "none" | "binary" | "structured";
}

/** The engine delivery for one received message, or why it cannot be one. */
export function inboundOf(
  channel: InboundChannel,
  message: Message,
): Omit<InboundDelivery, "deferral"> | Diagnostic {
  const body = bodyBytes(message.body);
  if (body === undefined) {
    return diagnostic(
      "SUTRA.AMQP10.BODY_UNREADABLE",
      `channel '${channel.name}': the message body is an AMQP sequence (or mixes section kinds); send one data section or an AMQP value`,
      { attributes: { channel: channel.name } },
    );
  }
  const headers: Record<string, string> = {};
  addHeaders(headers, message.application_properties);
  for (const [property, header] of PROPERTY_HEADERS) {
    const text = headerText(message[property]);
    if (text !== undefined) headers[header] = text;
  }
  const key = idempotencyKeyOf(channel.idempotency, headers);
  const delivery = {
    channel: channel.name,
    body,
    headers,
    ...(message.content_type ? { contentType: String(message.content_type) } : {}),
    ...(key === undefined ? {} : { idempotencyKey: key }),
  };
  const structured = channel.cloudeventsMode === "structured" ||
    isStructuredCloudEvent(delivery.contentType);
  if (!structured) return delivery;
  const unwrapped = unwrapCloudEvent(delivery);
  if ("code" in unwrapped) return unwrapped;
  return key === undefined ? unwrapped : { ...unwrapped, idempotencyKey: key };
}

function idempotencyKeyOf(
  source: IdempotencySource,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  switch (source.from) {
    case "message-id":
      return headers["message-id"];
    case "property":
      return headers[source.name];
    case "none":
      return undefined;
  }
}

/** The AMQP message for an outbound row: settled by the peer, identified by its idempotency key. */
export function outboundOf(message: OutboundMessage): Message {
  const properties: Record<string, string> = {};
  const application: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    const lower = name.toLowerCase();
    if (OWN_PROPERTIES.has(lower)) continue;
    const property = OUTBOUND_PROPERTIES[lower];
    if (property) properties[property] = value;
    else application[outboundHeaderName(lower, CLOUDEVENTS_PREFIX)] = value;
  }
  return {
    ...properties,
    body: rhea.message.data_section(Buffer.from(message.body)),
    message_id: message.idempotencyKey,
    durable: true,
    ...(message.contentType ? { content_type: message.contentType } : {}),
    ...(Object.keys(application).length > 0 ? { application_properties: application } : {}),
  };
}

/** A copy of a received message for the dead-letter address, with the diagnostic added. */
export function deadLetterOf(message: Message, diagnosticHeaders: Record<string, string>): Message {
  // The receiving side's view (first acquirer, delivery count) does not travel.
  const { first_acquirer: _first, delivery_count: _count, ...bare } = message;
  return {
    ...bare,
    body: message.body,
    durable: true,
    application_properties: { ...message.application_properties, ...diagnosticHeaders },
  };
}
