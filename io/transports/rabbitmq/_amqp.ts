/**
 * The AMQP 0-9-1 client (`npm:amqplib`) and the conversions between its
 * messages and the engine's deliveries.
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { Buffer } from "node:buffer";
import { addHeaders, headerText, outboundHeaderName } from "../_broker/mod.ts";

export { amqp, Buffer };

/** A connection (amqplib's channel model). */
export type AmqpConnection = Awaited<ReturnType<typeof amqp.connect>>;
/** A channel with publisher confirms. */
export type AmqpChannel = Awaited<ReturnType<AmqpConnection["createConfirmChannel"]>>;
/** A message handed to a consumer. */
export type AmqpMessage = NonNullable<Parameters<Parameters<AmqpChannel["consume"]>[1]>[0]>;
/** Publish options. */
export type PublishOptions = NonNullable<Parameters<AmqpChannel["publish"]>[3]>;

// AMQP basic properties as delivery headers (the content type also selects the codec).
const PROPERTIES = {
  contentType: "content-type",
  contentEncoding: "content-encoding",
  correlationId: "correlation-id",
  replyTo: "reply-to",
  messageId: "message-id",
  type: "type",
  appId: "app-id",
  userId: "user-id",
  timestamp: "timestamp",
  priority: "priority",
  expiration: "expiration",
} as const;

/** A message's properties and headers as the delivery's lower-case string headers. */
export function deliveryHeaders(message: AmqpMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const p = message.properties as unknown as Record<string, unknown>;
  for (const [property, name] of Object.entries(PROPERTIES)) {
    const text = headerText(p[property]);
    if (text !== undefined) headers[name] = text;
  }
  return addHeaders(headers, message.properties.headers);
}

/** The broker's own count of earlier deliveries (quorum queues), when it keeps one. */
export function priorDeliveries(message: AmqpMessage): number | undefined {
  const count = message.properties.headers?.["x-delivery-count"];
  return typeof count === "number" ? count : undefined;
}

/** Outbound headers as AMQP application headers (CloudEvents attributes in the AMQP spelling). */
export function amqpHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[outboundHeaderName(name)] = value;
  return out;
}

/** Publishes on a confirm channel and resolves once the broker confirmed (rejects on a nack). */
export function publishConfirmed(
  channel: AmqpChannel,
  target: { exchange: string; routingKey: string },
  body: Uint8Array,
  options: PublishOptions,
): Promise<void> {
  return new Promise((resolve, reject) => {
    try {
      channel.publish(target.exchange, target.routingKey, Buffer.from(body), options, (error) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve();
      });
    } catch (error) {
      reject(error);
    }
  });
}
