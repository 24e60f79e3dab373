/**
 * The `sqs` sink: outbox rows whose destination is
 * `sqs://<queue>[?group=<id>][&channel=<name>]` are sent with
 * `SendMessage`. A row is `delivered` only once SQS answered with the
 * message's id; an unreachable endpoint, a missing queue or a throttled
 * send is a retry (`SUTRA.BROKER.PUBLISH_FAILED`); a message SQS refuses
 * for good (too large, characters it does not carry) is poison with that
 * code, and so is a destination that cannot be parsed
 * (`SUTRA.BROKER.DESTINATION_INVALID`).
 *
 * The row's idempotency key travels as the message attribute
 * `idempotency-key` and, on a FIFO queue, as the `MessageDeduplicationId`
 * (so SQS itself drops the copy a retry after a lost answer produces, for
 * its five-minute window). A FIFO message's `MessageGroupId` is the
 * header `sqs-message-group-id` (a `q:header` with a FEEL value), else the
 * destination's `group`, else the queue's name; the header
 * `sqs-message-deduplication-id` overrides the deduplication id.
 *
 * SQS is reached with the settings of the channel the destination names
 * (a reply goes out on its request's channel), else the endpoint
 * `SUTRA_SQS_ENDPOINT` names (region `SUTRA_SQS_REGION`, credentials from
 * the SDK's own chain) when it is set, else the settings of the first sqs
 * channel (by name) the engine serves, else the region's endpoint with the
 * SDK's own credentials.
 *
 * @module
 */
import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { errorMessage } from "../../../engine/core/errors.ts";
import type {
  OutboundMessage,
  RemoteSink,
  SinkResult,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { destinationInvalid, firstValidOptions, namedChannel } from "../_broker/mod.ts";
import { messageAttributes, queueUrl, type SQSClient, sqsClient, textBody } from "./_client.ts";
import {
  DEFAULT_REGION,
  readSqsOptions,
  resolveConnection,
  type ResolvedConnection,
  type SqsConnection,
} from "./options.ts";

/** The destination scheme. */
export const SQS_SCHEME = "sqs";
/** The header naming a FIFO message's group. */
export const GROUP_HEADER = "sqs-message-group-id";
/** The header overriding a FIFO message's deduplication id. */
export const DEDUPLICATION_HEADER = "sqs-message-deduplication-id";
/** The attribute carrying the outbox row's idempotency key. */
export const IDEMPOTENCY_ATTRIBUTE = "idempotency-key";

/**
 * SQS errors no retry can get past: the message itself is refused (too
 * large, characters SQS does not carry, a bad attribute). Names come bare
 * (`InvalidMessageContents`) or prefixed (`AWS.SimpleQueueService.…`).
 */
const REFUSED_FOR_GOOD =
  /(^|\.)(InvalidParameterValue|InvalidMessageContents|InvalidAttributeName|InvalidAttributeValue|UnsupportedOperation)$/;

/** What a destination names. */
export interface SqsDestination {
  readonly queue: string;
  readonly group?: string;
  readonly channel?: string;
}

/** The queue (and group, channel) a destination names, or undefined when it names none. */
export function parseDestination(destination: string): SqsDestination | undefined {
  const match = /^sqs:\/\/([A-Za-z0-9_-]{1,75}(?:\.fifo)?)\/?(?:\?([^#]*))?$/.exec(
    destination.trim(),
  );
  if (!match) return undefined;
  const query = new URLSearchParams(match[2] ?? "");
  for (const key of query.keys()) if (key !== "group" && key !== "channel") return undefined;
  const group = query.get("group");
  const channel = query.get("channel");
  return {
    queue: match[1],
    ...(group ? { group } : {}),
    ...(channel ? { channel } : {}),
  };
}

/** The destination a reply to a message from `channel` goes to: its reply queue, on that channel's SQS. */
export function replyDestination(replyTo: string, channel: string): string {
  return `sqs://${replyTo}?channel=${encodeURIComponent(channel)}`;
}

/** The sink of one running engine. */
export function sqsSink(context: TransportContext): RemoteSink & { close(): void } {
  // One client per set of settings, one URL lookup per queue.
  const clients = new Map<string, { client: SQSClient; urls: Map<string, Promise<string>> }>();
  const clientFor = async (channel: string | undefined) => {
    const connection = await connectionOf(context, channel);
    const key = JSON.stringify(connection);
    let entry = clients.get(key);
    if (!entry) clients.set(key, entry = { client: sqsClient(connection), urls: new Map() });
    return entry;
  };
  const urlOf = (entry: { client: SQSClient; urls: Map<string, Promise<string>> }, q: string) => {
    let url = entry.urls.get(q);
    if (!url) {
      const lookup = queueUrl(entry.client, q);
      entry.urls.set(q, url = lookup);
      lookup.catch(() => entry.urls.delete(q));
    }
    return url;
  };

  return {
    name: SQS_SCHEME,
    async send(message: OutboundMessage): Promise<SinkResult> {
      const target = parseDestination(message.destination);
      if (!target) {
        return destinationInvalid(message.destination, "sqs://<queue>[?group=<id>]");
      }
      try {
        const entry = await clientFor(target.channel);
        const {
          [GROUP_HEADER]: groupHeader,
          [DEDUPLICATION_HEADER]: dedupHeader,
          ...headers
        } = message.headers;
        const attributes = messageAttributes(
          { ...headers, [IDEMPOTENCY_ATTRIBUTE]: message.idempotencyKey },
          message.contentType,
        );
        const body = textBody(message.body, attributes);
        const fifo = target.queue.endsWith(".fifo");
        const out = await entry.client.send(
          new SendMessageCommand({
            QueueUrl: await urlOf(entry, target.queue),
            MessageBody: body,
            MessageAttributes: attributes,
            ...(fifo
              ? {
                MessageGroupId: groupHeader || target.group || target.queue,
                MessageDeduplicationId: await deduplicationId(
                  dedupHeader || message.idempotencyKey,
                ),
              }
              : {}),
          }),
        );
        if (!out.MessageId) throw new Error("SQS answered without a message id");
        return { outcome: "delivered" };
      } catch (error) {
        const reason = `${errorMessage(error)} (${message.destination})`;
        return REFUSED_FOR_GOOD.test(error instanceof Error ? error.name : "")
          ? { outcome: "poison", error: `SUTRA.BROKER.PUBLISH_FAILED: refused for good: ${reason}` }
          : { outcome: "retry", error: `SUTRA.BROKER.PUBLISH_FAILED: ${reason}` };
      }
    },
    close() {
      for (const { client } of clients.values()) client.destroy();
      clients.clear();
    },
  };
}

/** SQS takes at most 128 characters of printable ASCII; longer or other keys are hashed. */
async function deduplicationId(key: string): Promise<string> {
  if (/^[\x21-\x7e]{1,128}$/.test(key)) return key;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The settings a send uses (see the module's documentation). */
async function connectionOf(
  context: TransportContext,
  channel: string | undefined,
): Promise<ResolvedConnection> {
  const named = namedChannel(context, channel);
  if (named) return await resolveConnection(context, readSqsOptions(named).options.connection);
  const fromEnv = await optionalSecret(context, "env:SUTRA_SQS_ENDPOINT");
  if (fromEnv !== undefined) {
    const region = await optionalSecret(context, "env:SUTRA_SQS_REGION");
    return { endpoint: fromEnv, region: region ?? DEFAULT_REGION };
  }
  const fallback: SqsConnection = { region: DEFAULT_REGION };
  const options = firstValidOptions(context, readSqsOptions);
  return await resolveConnection(context, options?.connection ?? fallback);
}

async function optionalSecret(
  context: TransportContext,
  reference: string,
): Promise<string | undefined> {
  try {
    return (await context.resolveSecret(reference)).trim() || undefined;
  } catch {
    return undefined;
  }
}
