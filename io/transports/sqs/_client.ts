/**
 * The SQS client (`npm:@aws-sdk/client-sqs`) and the conversions between
 * SQS messages and the engine's deliveries and outbound messages.
 *
 * The client is built with `useQueueUrlAsEndpoint: false`: requests go to
 * the configured endpoint (or the region's), never to the host a queue URL
 * names — an emulator hands out URLs on hosts that need not resolve. The
 * SDK's own retries are off: the consumer's backoff loop and the outbox
 * retry instead.
 *
 * Message attributes carry the headers: at most ten per message, so when a
 * message has more, they all travel as JSON in the one attribute
 * `sutra-headers` (unpacked on the way in). A body that is not UTF-8 text
 * (SQS carries text only) is sent as base64 with the attribute
 * `content-transfer-encoding: base64`.
 *
 * @module
 */
import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  QueueDoesNotExist,
  SQSClient,
  type SQSClientConfig,
} from "@aws-sdk/client-sqs";
import { addHeaders, headerText } from "../_broker/mod.ts";
import type { ResolvedConnection } from "./options.ts";
import { PINNED_AWS_SDK_SETTINGS } from "../../_aws/sdk_settings.ts";

export { SQSClient };
export type { Message };

/** The attribute that carries every header as JSON when there are more than SQS allows. */
export const PACKED_HEADERS = "sutra-headers";
/** The attribute marking a base64 body. */
export const TRANSFER_ENCODING = "content-transfer-encoding";
/** SQS's limit on message attributes per message. */
const MAX_ATTRIBUTES = 10;
/** What an SQS attribute name may hold (and may not start with). */
const ATTRIBUTE_NAME = /^(?!aws\.|amazon\.)[A-Za-z0-9_.-]{1,256}$/i;

/** A client for `connection`; `requestTimeoutMs` must exceed the long-poll wait. */
export function sqsClient(connection: ResolvedConnection, requestTimeoutMs = 30_000): SQSClient {
  return new SQSClient({
    region: connection.region,
    ...(connection.endpoint === undefined ? {} : { endpoint: connection.endpoint }),
    ...(connection.credentials === undefined ? {} : { credentials: connection.credentials }),
    useQueueUrlAsEndpoint: false,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: requestTimeoutMs },
    ...PINNED_AWS_SDK_SETTINGS,
  } as SQSClientConfig);
}

/** Looks a queue's URL up (creating it, with its FIFO attribute, when `declare`). */
export async function queueUrl(client: SQSClient, queue: string, declare = false): Promise<string> {
  if (declare) {
    const created = await client.send(
      new CreateQueueCommand({
        QueueName: queue,
        ...(queue.endsWith(".fifo") ? { Attributes: { FifoQueue: "true" } } : {}),
      }),
    );
    if (created.QueueUrl) return created.QueueUrl;
  }
  const found = await client.send(new GetQueueUrlCommand({ QueueName: queue }));
  if (!found.QueueUrl) {
    throw new QueueDoesNotExist({ message: `no queue '${queue}'`, $metadata: {} });
  }
  return found.QueueUrl;
}

/** A received message's body as bytes (a base64 body decoded). */
export function bodyOf(message: Message): Uint8Array {
  const text = message.Body ?? "";
  const encoding = message.MessageAttributes?.[TRANSFER_ENCODING]?.StringValue;
  if (encoding?.toLowerCase() === "base64") {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  }
  return new TextEncoder().encode(text);
}

/**
 * A message's attributes and system attributes as the delivery's
 * lower-case string headers: each message attribute under its own name
 * (CloudEvents names normalised, a packed `sutra-headers` unpacked), plus
 * `message-id`, and where SQS has them `sqs-message-group-id`,
 * `sqs-message-deduplication-id`, `sqs-sequence-number`,
 * `sqs-approximate-receive-count` and `sqs-sent-timestamp`.
 */
export function deliveryHeaders(message: Message): Record<string, string> {
  const headers: Record<string, string> = {};
  const attributes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    if (name === TRANSFER_ENCODING) continue;
    if (name === PACKED_HEADERS && value.StringValue) {
      try {
        Object.assign(attributes, JSON.parse(value.StringValue));
        continue;
      } catch {
        // Not ours after all: kept as it came.
      }
    }
    attributes[name] = value.StringValue ?? value.BinaryValue;
  }
  addHeaders(headers, attributes);
  if (message.MessageId) headers["message-id"] = message.MessageId;
  const system = message.Attributes ?? {};
  for (
    const [attribute, header] of [
      ["MessageGroupId", "sqs-message-group-id"],
      ["MessageDeduplicationId", "sqs-message-deduplication-id"],
      ["SequenceNumber", "sqs-sequence-number"],
      ["ApproximateReceiveCount", "sqs-approximate-receive-count"],
      ["SentTimestamp", "sqs-sent-timestamp"],
    ] as const
  ) {
    const text = headerText(system[attribute]);
    if (text !== undefined) headers[header] = text;
  }
  return headers;
}

/** The number of times SQS has handed the message out, this one included (at least 1). */
export function receiveCount(message: Message): number {
  const n = Number(message.Attributes?.ApproximateReceiveCount ?? "1");
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** Outbound headers (and the content type) as SQS message attributes, within SQS's limits. */
export function messageAttributes(
  headers: Readonly<Record<string, string>>,
  contentType: string | undefined,
): Record<string, MessageAttributeValue> {
  const all: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== "") all[name.toLowerCase()] = value;
  }
  if (contentType !== undefined) all["content-type"] = contentType;
  const names = Object.keys(all);
  const fits = names.length <= MAX_ATTRIBUTES - 1 && names.every((n) => ATTRIBUTE_NAME.test(n));
  if (!fits) {
    return { [PACKED_HEADERS]: { DataType: "String", StringValue: JSON.stringify(all) } };
  }
  return Object.fromEntries(
    names.map((n) => [n, { DataType: "String", StringValue: all[n] }]),
  );
}

/** A body for SQS: UTF-8 text as it is, other bytes as base64 (and the attribute saying so). */
export function textBody(
  body: Uint8Array,
  attributes: Record<string, MessageAttributeValue>,
): string {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    // SQS refuses characters outside XML's: such text travels as base64 too.
    // deno-lint-ignore no-control-regex
    if (!/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(text)) return text;
  } catch {
    // not UTF-8
  }
  attributes[TRANSFER_ENCODING] = { DataType: "String", StringValue: "base64" };
  let binary = "";
  for (const byte of body) binary += String.fromCharCode(byte);
  return btoa(binary);
}
