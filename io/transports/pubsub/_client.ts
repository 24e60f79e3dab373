/**
 * The Pub/Sub client (`npm:@google-cloud/pubsub`, gRPC through
 * `@grpc/grpc-js`) as the transport opens it, and the conversions between
 * Pub/Sub messages and the engine's deliveries.
 *
 * Attributes carry the CloudEvents Pub/Sub binding: `ce-<attr>` attributes
 * both ways, the data content type in `content-type`.
 *
 * @module
 */
import { Duration, type Message, PubSub, type Topic } from "@google-cloud/pubsub";
import { Buffer } from "node:buffer";
import type { TransportContext } from "../../../engine/core/transport.ts";
import { addHeaders } from "../_broker/mod.ts";
import type { PubSubConnection } from "./options.ts";

export { Buffer, Duration, PubSub };
export type { Message, Topic };

/** The outbound header whose value becomes the message's ordering key (not an attribute). */
export const ORDERING_KEY_HEADER = "pubsub-ordering-key";
/** The attribute carrying an outbox row's idempotency key (Pub/Sub assigns message ids itself). */
export const IDEMPOTENCY_ATTRIBUTE = "sutra-idempotency-key";

/** A resolved connection: the client options and the project's resource names. */
export interface OpenedClient {
  readonly client: PubSub;
  readonly project: string;
}

/** The value of an optional setting: a reference resolved, a literal as is, absent as undefined. */
async function valueOf(
  context: TransportContext,
  value: string | undefined,
): Promise<string | undefined> {
  return value === undefined ? undefined : await context.resolveSecret(value);
}

/** The first of `env:NAME` references that resolves, else undefined. */
async function firstEnv(
  context: TransportContext,
  ...names: string[]
): Promise<string | undefined> {
  for (const name of names) {
    try {
      const value = (await context.resolveSecret(`env:${name}`)).trim();
      if (value !== "") return value;
    } catch {
      // not set: the next one
    }
  }
  return undefined;
}

/**
 * Opens a client: the endpoint from the options or `PUBSUB_EMULATOR_HOST`
 * (an emulator: plain text, no credentials), the project from the options
 * or `PUBSUB_PROJECT_ID` / `GOOGLE_CLOUD_PROJECT`, service-account
 * credentials from the referenced JSON key when given.
 */
export async function openClient(
  context: TransportContext,
  connection: PubSubConnection,
): Promise<OpenedClient> {
  const endpoint = await valueOf(context, connection.endpoint) ??
    await firstEnv(context, "PUBSUB_EMULATOR_HOST");
  const project = await valueOf(context, connection.project) ??
    await firstEnv(context, "PUBSUB_PROJECT_ID", "GOOGLE_CLOUD_PROJECT");
  if (!project) {
    throw new Error("no project: set the channel's 'project' option or PUBSUB_PROJECT_ID");
  }
  const key = await valueOf(context, connection.credentials);
  const emulator = endpoint !== undefined && !/\.googleapis\.com(:\d+)?$/.test(endpoint);
  const client = new PubSub(
    {
      projectId: project,
      ...(endpoint === undefined ? {} : { apiEndpoint: endpoint }),
      ...(key === undefined ? {} : { credentials: serviceAccount(key) }),
      // An emulator needs no credentials; naming the universe keeps the auth library from probing
      // the GCE metadata server first.
      ...(emulator ? { emulatorMode: true, universeDomain: "googleapis.com" } : {}),
      // A server back after an outage is dialled again within seconds, not grpc's two minutes.
      "grpc.max_reconnect_backoff_ms": 5_000,
    } as ConstructorParameters<typeof PubSub>[0],
  );
  return { client, project };
}

/** A service-account key; the error never quotes the secret (JSON.parse's message would). */
function serviceAccount(key: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(key);
    if (parsed !== null && typeof parsed === "object") return parsed;
  } catch {
    // reported below
  }
  throw new Error("the 'credentials' reference does not resolve to a JSON service-account key");
}

/** A message's attributes and properties as the delivery's lower-case string headers. */
export function deliveryHeaders(message: Message): Record<string, string> {
  const headers: Record<string, string> = {
    "message-id": message.id,
    "publish-time": message.publishTime.toISOString(),
  };
  if (message.orderingKey) headers["ordering-key"] = message.orderingKey;
  return addHeaders(headers, message.attributes);
}

/** The data content type of a message (the binding's `content-type` attribute). */
export function contentTypeOf(message: Message): string | undefined {
  for (const [name, value] of Object.entries(message.attributes)) {
    if (name.toLowerCase() === "content-type" && value !== "") return value;
  }
  return undefined;
}

/** The attribute names of the engine's outbound headers (CloudEvents keep their `ce-` prefix). */
export function outboundAttributes(
  headers: Readonly<Record<string, string>>,
): { attributes: Record<string, string>; orderingKey?: string } {
  const attributes: Record<string, string> = {};
  let orderingKey: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === ORDERING_KEY_HEADER) orderingKey = value;
    else attributes[name.toLowerCase()] = value;
  }
  return { attributes, ...(orderingKey ? { orderingKey } : {}) };
}
