/**
 * Turning what a step produced into bytes: the `q:reply` an on-complete
 * caller receives, and the outbox rows for the step's emissions.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import type { DeliveryReply } from "../../core/transport.ts";
import type { Effects } from "../../executor/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import type { OutboxRow } from "../instances/repository.ts";

const utf8 = new TextEncoder();

/** A body as bytes: bytes stay bytes, text is UTF-8, anything else is JSON. */
export function bodyBytes(
  body: unknown,
  contentType: string | undefined,
): { bytes: Uint8Array; contentType: string } {
  if (body instanceof Uint8Array) {
    return { bytes: body, contentType: contentType ?? "application/octet-stream" };
  }
  if (typeof body === "string") {
    return { bytes: utf8.encode(body), contentType: contentType ?? "text/plain; charset=utf-8" };
  }
  return {
    bytes: utf8.encode(JSON.stringify(body ?? null)),
    contentType: contentType ?? "application/json",
  };
}

/** The first `q:reply` of a step, encoded for the caller; undefined when the step replied nothing. */
export function replyOf(effects: Effects): DeliveryReply | undefined {
  const reply = effects.replies[0];
  if (!reply) return undefined;
  const { bytes, contentType } = bodyBytes(reply.body, reply.contentType);
  return { body: bytes, contentType, headers: reply.headers };
}

/** The address a channel's emissions go to: its bind, else `<transport>://<name>`. */
export function channelDestination(
  decl: { name: string; transport: string; bind?: string },
): string {
  return decl.bind ?? `${decl.transport}://${decl.name}`;
}

/** Where an emission goes: its explicit destination, else its channel's bind address. */
function destinationOf(
  deployment: ActiveDeployment,
  channel: string | undefined,
  destination: string | undefined,
): string {
  if (destination !== undefined) return destination;
  const decl = deployment.package.channels.entries?.find((c) => c.name === channel);
  if (!decl) return `unbound://${channel ?? ""}`;
  return channelDestination(decl);
}

/** One outbox row per emission, with the body already encoded. */
export function outboxRows(deployment: ActiveDeployment, effects: Effects): OutboxRow[] {
  return effects.emissions.map((e) => {
    const { bytes, contentType } = bodyBytes(e.body, e.contentType);
    return {
      outboxId: newId(),
      destination: destinationOf(deployment, e.channel, e.destination),
      headers: e.headers,
      body: bytes,
      contentType,
      idempotencyKey: e.idempotencyKey,
    };
  });
}
