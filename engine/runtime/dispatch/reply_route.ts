/**
 * Durable replies: when a delivery names a reply route (a broker's
 * `reply-to`), the step's first `q:reply` becomes one more outbox row, to
 * that route's destination, committed with the step. The transport's sink
 * for that destination then sends it with its usual guarantees.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import type { ReplyRoute } from "../../core/transport.ts";
import type { Effects } from "../../executor/mod.ts";
import type { OutboxRow } from "../instances/repository.ts";
import { type EncodeContext, replyOf } from "./encode.ts";

/** The outbox row answering on `route`, or none when there is no route or no reply. */
export function replyRows(
  route: ReplyRoute | undefined,
  effects: Effects,
  at: EncodeContext,
): OutboxRow[] {
  const reply = route && replyOf(effects, at);
  if (!route || !reply) return [];
  const outboxId = newId();
  return [{
    outboxId,
    destination: route.destination,
    headers: { ...reply.headers, ...route.headers },
    body: reply.body,
    ...(reply.contentType === undefined ? {} : { contentType: reply.contentType }),
    idempotencyKey: `reply-${outboxId}`,
  }];
}
