/**
 * A `transport: sqs` channel's `options:` block.
 *
 * ```yaml
 * - name: orders
 *   transport: sqs
 *   ack-mode: on-complete
 *   options:
 *     queue: orders.fifo                  # default: the channel's name; `.fifo` = a FIFO queue
 *     endpoint: env:SUTRA_SQS_ENDPOINT    # optional (an emulator, a VPC endpoint); literal or reference
 *     region: eu-west-1                   # default us-east-1
 *     access-key-id: env:AWS_ACCESS_KEY_ID          # references; without them the SDK's own chain
 *     secret-access-key: env:AWS_SECRET_ACCESS_KEY
 *     session-token: env:AWS_SESSION_TOKEN          # optional
 *     declare: false                      # true: create the queue and its dead-letter queue
 *     wait-time: PT20S                    # long poll, at most PT20S
 *     visibility-timeout: PT30S           # renewed while a message is in hand
 *     prefetch: 10                        # messages in hand at most
 *     max-deliveries: 5                   # redelivery budget (ApproximateReceiveCount)
 *     retry-delay: PT1S                   # first wait before a transient refusal is retried
 *     dead-letter-queue: orders-dlq.fifo  # default <queue>-dlq (FIFO: <name>-dlq.fifo)
 *     idempotency-key: auto               # message-id, deduplication-id, attribute:<name>
 *     lease-ttl: PT30S                    # singleton channels: takeover bound
 *     consume: true                       # false: send-only (a q:send destination), never consumed
 * ```
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import {
  type BrokerChannelOptions,
  CONSUME_OPTION,
  optionInvalid,
  OptionReader,
} from "../_broker/mod.ts";

/** Every key an sqs channel's options may hold. */
export const SQS_OPTION_KEYS = [
  "queue",
  "endpoint",
  "region",
  "access-key-id",
  "secret-access-key",
  "session-token",
  "declare",
  "wait-time",
  "visibility-timeout",
  "prefetch",
  "max-deliveries",
  "retry-delay",
  "dead-letter-queue",
  "idempotency-key",
  "lease-ttl",
  CONSUME_OPTION,
] as const;

/** Where a delivery's idempotency key comes from. */
export type SqsIdempotency =
  /**
   * The SQS `MessageId`; with `attribute` (standard queues' default:
   * `idempotency-key`, which the sqs sink sets) that attribute when the
   * message has it.
   */
  | { readonly from: "message-id"; readonly attribute?: string }
  /** The `MessageDeduplicationId` (FIFO queues' default), else the `MessageId`. */
  | { readonly from: "deduplication-id" }
  /** A message attribute of that (lower-case) name. */
  | { readonly from: "attribute"; readonly name: string };

/** How the client reaches SQS; the strings may be secret references. */
export interface SqsConnection {
  readonly endpoint?: string;
  readonly region: string;
  readonly accessKeyId?: string;
  readonly secretAccessKey?: string;
  readonly sessionToken?: string;
}

/** An sqs channel's settings, defaults applied. */
export interface SqsChannelOptions extends BrokerChannelOptions {
  readonly connection: SqsConnection;
  readonly queue: string;
  /** True for a FIFO queue (its name ends in `.fifo`). */
  readonly fifo: boolean;
  readonly declare: boolean;
  /** Long-poll wait, whole seconds (0–20). */
  readonly waitSeconds: number;
  /** Visibility timeout a received message gets, and each renewal sets, whole seconds. */
  readonly visibilitySeconds: number;
  readonly prefetch: number;
  readonly maxDeliveries: number;
  readonly retryDelayMs: number;
  readonly deadLetterQueue: string;
  readonly idempotency: SqsIdempotency;
  readonly leaseTtlMs: number;
}

/** The default region when a channel names none. */
export const DEFAULT_REGION = "us-east-1";

/** The dead-letter queue a queue gets by default: `<queue>-dlq`, keeping a FIFO queue's suffix. */
export function defaultDeadLetterQueue(queue: string): string {
  return queue.endsWith(".fifo") ? `${queue.slice(0, -5)}-dlq.fifo` : `${queue}-dlq`;
}

/** Reads a channel's options; the diagnostics list what is wrong (empty when nothing is). */
export function readSqsOptions(
  channel: BoundChannel,
): { options: SqsChannelOptions; problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const r = new OptionReader(name, channel.declaration.options);
  r.only(SQS_OPTION_KEYS);
  const queue = r.string("queue", name)!;
  const connection = readConnection(r);
  const waitMs = r.duration("wait-time", 20_000);
  const visibilityMs = r.duration("visibility-timeout", 30_000);
  const key = r.string("idempotency-key", "auto")!;
  const fifo = queue.endsWith(".fifo");
  const options: SqsChannelOptions = {
    connection,
    queue,
    fifo,
    declare: r.boolean("declare", false),
    waitSeconds: Math.round(waitMs / 1000),
    visibilitySeconds: Math.round(visibilityMs / 1000),
    prefetch: r.integer("prefetch", 10, 1, 10_000),
    maxDeliveries: r.integer("max-deliveries", 5, 1, 1_000_000),
    retryDelayMs: r.duration("retry-delay", 1_000),
    deadLetterQueue: r.string("dead-letter-queue", defaultDeadLetterQueue(queue))!,
    idempotency: idempotencyOf(key, fifo),
    leaseTtlMs: r.duration("lease-ttl", 30_000),
    consume: r.consume(),
  };
  const problems = [...r.problems, ...connectionProblems(name, connection)];
  if (waitMs > 20_000 || waitMs % 1000 !== 0) {
    problems.push(optionInvalid(name, "wait-time", "must be whole seconds, at most PT20S"));
  }
  if (visibilityMs > 43_200_000 || visibilityMs % 1000 !== 0 || visibilityMs < 3000) {
    problems.push(
      optionInvalid(name, "visibility-timeout", "must be whole seconds from PT3S to PT12H"),
    );
  }
  if (!/^(auto|message-id|deduplication-id|attribute:[A-Za-z0-9_.-]+)$/.test(key)) {
    problems.push(
      optionInvalid(
        name,
        "idempotency-key",
        "must be auto, message-id, deduplication-id or attribute:<name>",
      ),
    );
  }
  if (options.deadLetterQueue === queue) {
    problems.push(optionInvalid(name, "dead-letter-queue", "must not be the channel's own queue"));
  }
  if (fifo !== options.deadLetterQueue.endsWith(".fifo")) {
    problems.push(
      optionInvalid(
        name,
        "dead-letter-queue",
        "must be a FIFO queue exactly when the queue is one",
      ),
    );
  }
  return { options, problems };
}

/** The connection keys of an options block (shared by the channel and the sink). */
function readConnection(r: OptionReader): SqsConnection {
  const endpoint = r.string("endpoint");
  const accessKeyId = r.string("access-key-id");
  const secretAccessKey = r.string("secret-access-key");
  const sessionToken = r.string("session-token");
  return {
    region: r.string("region", DEFAULT_REGION)!,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(accessKeyId === undefined ? {} : { accessKeyId }),
    ...(secretAccessKey === undefined ? {} : { secretAccessKey }),
    ...(sessionToken === undefined ? {} : { sessionToken }),
  };
}

function connectionProblems(channel: string, c: SqsConnection): Diagnostic[] {
  const problems: Diagnostic[] = [];
  if ((c.accessKeyId === undefined) !== (c.secretAccessKey === undefined)) {
    problems.push(optionInvalid(
      channel,
      c.accessKeyId === undefined ? "access-key-id" : "secret-access-key",
      "must come with its pair (access-key-id and secret-access-key)",
    ));
  }
  for (
    const [option, value] of [
      ["secret-access-key", c.secretAccessKey],
      ["session-token", c.sessionToken],
    ] as const
  ) {
    if (value !== undefined && !isSecretReference(value)) {
      problems.push(
        optionInvalid(
          channel,
          option,
          "is a literal: use a secret reference (env:, secret:, ${…})",
        ),
      );
    }
  }
  if (c.endpoint !== undefined && !isSecretReference(c.endpoint)) {
    try {
      const url = new URL(c.endpoint);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
    } catch {
      problems.push(
        optionInvalid(channel, "endpoint", "must be an http(s) URL or a secret reference"),
      );
    }
  }
  return problems;
}

function idempotencyOf(key: string, fifo: boolean): SqsIdempotency {
  if (key.startsWith("attribute:")) return { from: "attribute", name: key.slice(10).toLowerCase() };
  if (key === "message-id") return { from: "message-id" };
  if (key === "deduplication-id") return { from: "deduplication-id" };
  return fifo ? { from: "deduplication-id" } : { from: "message-id", attribute: "idempotency-key" };
}

/** True when `value` is a secret reference (`env:`, `secret:`, `${…}` or a vendor scheme). */
export function isSecretReference(value: string): boolean {
  return /^(env:|secret:|\$\{)/.test(value) || /^[a-z][a-z0-9-]*:(?!\/\/)/.test(value);
}

/** A connection with its references resolved. */
export interface ResolvedConnection {
  readonly endpoint?: string;
  readonly region: string;
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
}

/** Resolves a connection's secret references (a literal passes as it is). */
export async function resolveConnection(
  context: Pick<TransportContext, "resolveSecret">,
  c: SqsConnection,
): Promise<ResolvedConnection> {
  const value = async (v: string | undefined) =>
    v === undefined ? undefined : isSecretReference(v) ? await context.resolveSecret(v) : v;
  const endpoint = await value(c.endpoint);
  const accessKeyId = await value(c.accessKeyId);
  const secretAccessKey = await value(c.secretAccessKey);
  const sessionToken = await value(c.sessionToken);
  return {
    region: c.region,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(accessKeyId === undefined || secretAccessKey === undefined ? {} : {
      credentials: {
        accessKeyId,
        secretAccessKey,
        ...(sessionToken === undefined ? {} : { sessionToken }),
      },
    }),
  };
}
