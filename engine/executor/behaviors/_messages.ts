/**
 * Outbound messages of throwing nodes: a `q:send` emission (send tasks,
 * message throw and end events) or, for a node that answers the caller
 * instead, the `q:reply` (which the step loop emits when the node
 * completes). The body is the node's data inputs.
 *
 * @module
 */
import type { Execution } from "../behavior.ts";
import type { EmissionEffect } from "../effects.ts";
import type { Token } from "../state.ts";

/**
 * Emits the node's `q:send` message, if it has one, then completes the
 * node; its `q:reply`, if it has one, carries the same body.
 */
export function emitMessage(x: Execution, token: Token): void | Promise<void> {
  const node = x.nodeOf(token);
  const send = node.send;
  const body = x.body(token);
  const go = (value: Awaited<typeof body>) => {
    if (!send) {
      x.complete(token, undefined, { replyBody: value });
      return;
    }
    const emission: { -readonly [K in keyof EmissionEffect]: EmissionEffect[K] } = {
      node: node.id,
      headers: x.headers(token, send.headers),
      body: x.plain(value),
      idempotencyKey: x.idempotencyKey(token),
    };
    if (send.channel !== undefined) emission.channel = send.channel;
    if (send.destination !== undefined) emission.destination = send.destination;
    (x.effects.emissions ??= []).push(emission);
    x.complete(token, undefined, { replyBody: value });
  };
  return body instanceof Promise ? body.then(go) : go(body);
}
