import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import rhea from "rhea";
import { bodyBytes, deadLetterOf, inboundOf, outboundOf } from "./_message.ts";
import type { InboundDelivery } from "../../../engine/core/transport.ts";

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const channel = { name: "c", idempotency: { from: "message-id" } } as const;

function delivered(value: ReturnType<typeof inboundOf>): Omit<InboundDelivery, "deferral"> {
  assert.ok(!("code" in value), JSON.stringify(value));
  return value as Omit<InboundDelivery, "deferral">;
}

Deno.test("every body section an AMQP sender may use becomes bytes, a sequence does not", () => {
  assert.equal(text(bodyBytes(rhea.message.data_section(Buffer.from("a")))), "a");
  assert.equal(text(bodyBytes("plain")), "plain");
  assert.equal(text(bodyBytes({ a: 1 })), '{"a":1}');
  assert.equal(text(bodyBytes(undefined)), "");
  const sections = [
    rhea.message.data_section(Buffer.from("a")),
    rhea.message.data_section(Buffer.from("b")),
  ];
  assert.equal(text(bodyBytes(sections)), "ab");
  assert.equal(bodyBytes(rhea.message.sequence_section([1, 2])), undefined);
});

Deno.test("properties and application properties become lower-case headers; message-id keys dedup", () => {
  const d = delivered(inboundOf(channel, {
    body: rhea.message.data_section(Buffer.from("{}")),
    message_id: "m-1",
    correlation_id: "c-1",
    reply_to: "/queue/r",
    subject: "s",
    content_type: "application/json",
    application_properties: { "X-Trace": "t", count: 3, flag: true },
  }));
  assert.equal(d.idempotencyKey, "m-1");
  assert.equal(d.contentType, "application/json");
  assert.deepEqual(d.headers, {
    "message-id": "m-1",
    "correlation-id": "c-1",
    "reply-to": "/queue/r",
    subject: "s",
    "content-type": "application/json",
    "x-trace": "t",
    count: "3",
    flag: "true",
  });
});

Deno.test("the idempotency key can come from an application property, or from nowhere", () => {
  const message = { body: "x", message_id: "m", application_properties: { "Order-Key": "k" } };
  const property = { ...channel, idempotency: { from: "property", name: "order-key" } } as const;
  assert.equal(delivered(inboundOf(property, message)).idempotencyKey, "k");
  const none = { ...channel, idempotency: { from: "none" } } as const;
  assert.equal(delivered(inboundOf(none, message)).idempotencyKey, undefined);
});

Deno.test("CloudEvents binary mode: every prefix spelling becomes a ce-* header", () => {
  const d = delivered(inboundOf(channel, {
    body: "{}",
    content_type: "application/json",
    application_properties: {
      "cloudEvents:id": "e-1",
      "cloudEvents_type": "t",
      "ce_source": "/s",
      "cloudEvents:specversion": "1.0",
    },
  }));
  assert.equal(d.headers["ce-id"], "e-1");
  assert.equal(d.headers["ce-type"], "t");
  assert.equal(d.headers["ce-source"], "/s");
  assert.equal(d.headers["ce-specversion"], "1.0");
  assert.equal(d.contentType, "application/json");
});

Deno.test("CloudEvents structured mode is unwrapped by its content type, keeping the message id", () => {
  const envelope = { specversion: "1.0", id: "e-2", type: "t", source: "/s", data: { a: 1 } };
  const d = delivered(inboundOf(channel, {
    body: rhea.message.data_section(Buffer.from(JSON.stringify(envelope))),
    message_id: "m-2",
    content_type: "application/cloudevents+json; charset=utf-8",
  }));
  assert.deepEqual(JSON.parse(text(d.body)), { a: 1 });
  assert.equal(d.headers["ce-id"], "e-2");
  assert.equal(d.idempotencyKey, "m-2");
  const broken = inboundOf({ ...channel, cloudeventsMode: "structured" }, { body: "{}" });
  assert.equal("code" in broken && broken.code, "SUTRA.INBOUND.CLOUDEVENT.INVALID");
});

Deno.test("an AMQP sequence body is poison with its own code", () => {
  const refused = inboundOf(channel, { body: rhea.message.sequence_section([1]) });
  assert.equal("code" in refused && refused.code, "SUTRA.AMQP10.BODY_UNREADABLE");
});

Deno.test("outbound: the idempotency key is the message-id, AMQP properties move, ce-* get the binding prefix", () => {
  const m = outboundOf({
    destination: "amqp10://c/queue/x",
    headers: {
      "Correlation-Id": "c-9",
      "reply-to": "/queue/r",
      "ce-type": "t",
      "message-id": "ignored",
      "x-a": "b",
    },
    body: new TextEncoder().encode("{}"),
    contentType: "application/json",
    idempotencyKey: "k-9",
    attempt: 2,
  });
  assert.equal(m.message_id, "k-9");
  assert.equal(m.correlation_id, "c-9");
  assert.equal(m.reply_to, "/queue/r");
  assert.equal(m.content_type, "application/json");
  assert.equal(m.durable, true);
  assert.deepEqual(m.application_properties, { "cloudEvents:type": "t", "x-a": "b" });
  assert.equal(text(bodyBytes(m.body)), "{}");
});

Deno.test("a dead-letter copy keeps the message and adds the diagnostic properties", () => {
  const copy = deadLetterOf(
    {
      body: "x",
      message_id: "m",
      first_acquirer: false,
      delivery_count: 2,
      application_properties: { a: "b" },
    },
    { "sutra-diagnostic-code": "SUTRA.X.Y" },
  );
  assert.equal(copy.message_id, "m");
  assert.equal(copy.body, "x");
  assert.equal(copy.first_acquirer, undefined);
  assert.equal(copy.delivery_count, undefined);
  assert.deepEqual(copy.application_properties, { a: "b", "sutra-diagnostic-code": "SUTRA.X.Y" });
});
