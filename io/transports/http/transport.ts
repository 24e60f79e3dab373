/**
 * The HTTP transport factory: inbound channel routes with per-channel
 * authentication and CloudEvents handling, the mapping from intake outcomes
 * to status codes, and the outbound sink.
 *
 * @module
 */
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import type { Registry } from "../../../engine/core/registry.ts";
import {
  type BoundChannel,
  type DeliveryOutcome,
  type InboundDelivery,
  type RefusalClass,
  refusedForNow,
  type Sink,
  type TransportContext,
  type TransportFactory,
} from "../../../engine/core/transport.ts";
import type { Logger } from "../../../engine/core/log.ts";
import { payloadTooLarge } from "../../../engine/intake/mod.ts";
import { authenticate, challenge } from "../../../engine/runtime/channel_auth.ts";
import { readBodyWithin, withheld } from "../../../engine/runtime/http_router.ts";
import { retryAfterSeconds } from "../../../engine/runtime/tenancy/quotas.ts";
import { unwrapCloudEvent } from "../../../engine/core/cloudevents.ts";
import { httpSink } from "./sink.ts";

const STATUS: Readonly<Record<RefusalClass, number>> = {
  malformed: 400,
  "too-large": 413,
  "not-found": 404,
  conflict: 409,
  retry: 409,
  rejected: 422,
  overloaded: 429,
  failed: 500,
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * The HTTP response for an intake outcome. A failure inside the engine is
 * answered 500 with its codes only; the detail goes to `logger`.
 */
export function responseOf(outcome: DeliveryOutcome, logger: Logger): Response {
  switch (outcome.kind) {
    case "captured":
      return json(202, { receiptId: outcome.receiptId });
    case "settled": {
      if (!outcome.reply) return json(200, { instances: outcome.instances });
      const headers = new Headers(outcome.reply.headers);
      if (outcome.reply.contentType) headers.set("content-type", outcome.reply.contentType);
      return new Response(outcome.reply.body.slice(), { status: 200, headers });
    }
    case "refused": {
      const retry = refusedForNow(outcome.refusal);
      const diagnostics = outcome.refusal === "failed"
        ? withheld(logger, outcome.diagnostics)
        : outcome.diagnostics;
      return json(
        STATUS[outcome.refusal],
        { diagnostics },
        retry ? { "retry-after": String(retryAfterSeconds(outcome.diagnostics[0]) ?? 1) } : {},
      );
    }
  }
}

/** Each channel list's channels by the binding they answer; the first of a binding wins. */
const byBinding = new WeakMap<readonly BoundChannel[], Map<string, BoundChannel>>();

function channelFor(context: TransportContext, name: string): BoundChannel | undefined {
  const channels = context.channels();
  let bindings = byBinding.get(channels);
  if (!bindings) {
    bindings = new Map();
    for (const c of channels) {
      const binding = c.declaration.bind ?? `POST /channels/${c.declaration.name}`;
      if (!bindings.has(binding)) bindings.set(binding, c);
    }
    byBinding.set(channels, bindings);
  }
  return bindings.get(`POST /channels/${name}`);
}

async function receive(
  context: TransportContext,
  request: Request,
  name: string,
): Promise<Response> {
  const channel = channelFor(context, name);
  if (!channel) {
    return json(404, {
      diagnostics: [
        diagnostic(
          "SUTRA.RESOLVE.CHANNEL.UNKNOWN",
          `no active deployment binds POST /channels/${name}`,
          { attributes: { channel: name } },
        ),
      ],
    });
  }
  const denied = await authenticate(channel.declaration.auth, request.headers, context);
  if (denied) {
    return json(401, { diagnostics: [denied] }, {
      "www-authenticate": challenge(channel.declaration.auth),
    });
  }
  // Read only up to the cap intake would hold the body to, so an oversized
  // body is refused without ever being in memory whole.
  const caps = {
    channelCapBytes: channel.declaration.payloadCapBytes,
    capBytes: context.payloadCapBytes,
  };
  const body = await readBodyWithin(request, caps.channelCapBytes ?? caps.capBytes);
  if (!(body instanceof Uint8Array)) {
    const refusal = payloadTooLarge(channel.declaration.name, body.size, caps, body.partial)!;
    return json(413, { diagnostics: [refusal] });
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => headers[key] = value);
  let delivery: InboundDelivery = {
    channel: channel.declaration.name,
    body,
    headers,
    ...(request.headers.has("content-type")
      ? { contentType: request.headers.get("content-type")! }
      : {}),
  };
  if (channel.declaration.cloudeventsMode === "structured") {
    const unwrapped = unwrapCloudEvent(delivery);
    if ("code" in unwrapped) return json(400, { diagnostics: [unwrapped] });
    delivery = unwrapped;
  }
  return responseOf(await context.deliver(delivery), context.logger);
}

/** The HTTP transport. */
export const httpTransport: TransportFactory = {
  name: "http",
  handlesOnComplete: true,
  defaultAckMode: "on-complete",
  spawn(context) {
    context.http.add(
      "POST",
      "/channels/{name}",
      (request, params) => receive(context, request, params.name),
    );
    return { stop: () => Promise.resolve() };
  },
  registerSinks(sinks: Registry<Sink>) {
    for (const scheme of ["http", "https"]) {
      if (!sinks.has(scheme)) sinks.register(httpSink(scheme));
    }
  },
};
