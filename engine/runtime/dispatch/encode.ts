/**
 * Turning what a step produced into bytes: the `q:reply` an on-complete
 * caller receives, and the outbox rows for the step's emissions — each as
 * a CloudEvent when asked.
 *
 * A reply follows its `mode`: `cloudevent-binary` / `cloudevent-structured`
 * wrap it, `match-inbound` answers in the mode the consumed message came in
 * (none when it was no CloudEvent), `native` leaves it as it is. An
 * emission to a channel follows that channel's `cloudevents-mode`. The
 * attributes default to: `id` the emission's idempotency key (the same on
 * every outbox attempt) or a fresh id for a reply, `source`
 * `sutra://<tenant>/<module>/<process>`, `type` `<process>.<node>`, `time`
 * the engine clock, `subject` the instance id; a `q:header` named `ce-<attr>`
 * overrides any of them.
 *
 * @module
 */
import type { Clock } from "../../core/clock.ts";
import { type CloudEventMode, encodeCloudEvent, type WireMessage } from "../../core/cloudevents.ts";
import { newId } from "../../core/ids.ts";
import type { DeliveryReply } from "../../core/transport.ts";
import type { ReplyMode } from "../../bpmn/mod.ts";
import type { Effects } from "../../executor/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import type { OutboxRow } from "../instances/repository.ts";

const utf8 = new TextEncoder();

/** What encoding a step's output needs to know about the step. */
export interface EncodeContext {
  readonly deployment: ActiveDeployment;
  readonly processId: string;
  readonly instanceId: string;
  /** The CloudEvents mode the message the step consumed arrived in, for `match-inbound`. */
  readonly inbound?: CloudEventMode;
  /** The engine clock, for `time` (the wall clock when absent). */
  readonly clock?: Clock;
}

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

/** The CloudEvents mode a reply's `mode` asks for; undefined for none. */
export function replyCloudEventMode(
  mode: ReplyMode,
  inbound: CloudEventMode | undefined,
): CloudEventMode | undefined {
  switch (mode) {
    case "native":
      return undefined;
    case "cloudevent-binary":
      return "binary";
    case "cloudevent-structured":
      return "structured";
    case "match-inbound":
      return inbound;
  }
}

/** `message` as a CloudEvent in `mode` with the step's defaults, or unchanged without a mode. */
function wrap(
  mode: CloudEventMode | undefined,
  message: WireMessage & { contentType: string },
  at: EncodeContext,
  event: { readonly node: string; readonly id: string },
): WireMessage & { contentType: string } {
  if (!mode) return message;
  const { deployment, processId } = at;
  const module = deployment.labels.module ?? deployment.slot;
  return encodeCloudEvent(mode, message, {
    id: event.id,
    source: `sutra://${deployment.tenant}/${module}/${processId}`,
    type: `${processId}.${event.node}`,
    time: new Date(at.clock?.now() ?? Date.now()).toISOString(),
    subject: at.instanceId,
  });
}

/** The first `q:reply` of a step, encoded for the caller; undefined when the step replied nothing. */
export function replyOf(effects: Effects, at: EncodeContext): DeliveryReply | undefined {
  const reply = effects.replies[0];
  if (!reply) return undefined;
  const { bytes, contentType } = bodyBytes(reply.body, reply.contentType);
  const mode = replyCloudEventMode(reply.mode, at.inbound);
  return wrap(mode, { body: bytes, contentType, headers: reply.headers }, at, {
    node: reply.node,
    id: newId(),
  });
}

/** The address a channel's emissions go to: its bind, else `<transport>://<name>`. */
export function channelDestination(
  decl: { name: string; transport: string; bind?: string },
): string {
  return decl.bind ?? `${decl.transport}://${decl.name}`;
}

/** Where an emission goes, and the CloudEvents mode of the channel it names. */
function targetOf(
  deployment: ActiveDeployment,
  channel: string | undefined,
  destination: string | undefined,
): { destination: string; mode?: CloudEventMode } {
  const decl = channel === undefined
    ? undefined
    : deployment.package.channels.entries?.find((c) => c.name === channel);
  const declared = decl?.cloudeventsMode;
  const mode = declared === "binary" || declared === "structured" ? declared : undefined;
  if (destination !== undefined) return { destination, ...(mode ? { mode } : {}) };
  if (!decl) return { destination: `unbound://${channel ?? ""}` };
  return { destination: channelDestination(decl), ...(mode ? { mode } : {}) };
}

/** One outbox row per emission, with the body already encoded. */
export function outboxRows(effects: Effects, at: EncodeContext): OutboxRow[] {
  return effects.emissions.map((e) => {
    const { bytes, contentType } = bodyBytes(e.body, e.contentType);
    const target = targetOf(at.deployment, e.channel, e.destination);
    const wire = wrap(target.mode, { body: bytes, contentType, headers: e.headers }, at, {
      node: e.node,
      id: e.idempotencyKey,
    });
    return {
      outboxId: newId(),
      destination: target.destination,
      headers: wire.headers,
      body: wire.body,
      contentType: wire.contentType,
      idempotencyKey: e.idempotencyKey,
    };
  });
}
