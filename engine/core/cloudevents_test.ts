import assert from "node:assert/strict";
import {
  CLOUDEVENTS_MODE_HEADER,
  encodeCloudEvent,
  inboundCloudEventMode,
  unwrapCloudEvent,
} from "./cloudevents.ts";

const defaults = {
  id: "e-1",
  source: "sutra://t/m/p",
  type: "p.n",
  time: "2026-01-01T00:00:00.000Z",
};
const utf8 = new TextEncoder();
const envelopeOf = (body: Uint8Array) => JSON.parse(new TextDecoder().decode(body));

Deno.test("binary mode keeps the body and adds ce-* headers; ce-* headers given override", () => {
  const wire = encodeCloudEvent("binary", {
    body: utf8.encode("<a/>"),
    contentType: "application/xml",
    headers: { "x-a": "1", "CE-Type": "com.example.t" },
  }, defaults);
  assert.equal(new TextDecoder().decode(wire.body), "<a/>");
  assert.equal(wire.contentType, "application/xml");
  assert.deepEqual(wire.headers, {
    "x-a": "1",
    "ce-specversion": "1.0",
    "ce-id": "e-1",
    "ce-source": "sutra://t/m/p",
    "ce-type": "com.example.t",
    "ce-time": "2026-01-01T00:00:00.000Z",
  });
});

Deno.test("structured mode: JSON as data, text as a string, bytes as data_base64", () => {
  const json = encodeCloudEvent("structured", {
    body: utf8.encode('{"a":1}'),
    contentType: "application/json",
    headers: { "x-a": "1" },
  }, defaults);
  assert.equal(json.contentType, "application/cloudevents+json");
  assert.deepEqual(json.headers, { "x-a": "1" });
  assert.deepEqual(envelopeOf(json.body), {
    specversion: "1.0",
    ...defaults,
    datacontenttype: "application/json",
    data: { a: 1 },
  });
  const text = encodeCloudEvent("structured", {
    body: utf8.encode("<a/>"),
    contentType: "application/xml",
    headers: {},
  }, defaults);
  assert.equal(envelopeOf(text.body).data, "<a/>");
  const bytes = encodeCloudEvent("structured", {
    body: new Uint8Array([0, 255, 1]),
    contentType: "application/octet-stream",
    headers: {},
  }, defaults);
  assert.equal(envelopeOf(bytes.body).data_base64, "AP8B");
  assert.equal(envelopeOf(bytes.body).data, undefined);
  const notJson = encodeCloudEvent("structured", {
    body: utf8.encode("{broken"),
    contentType: "application/json",
    headers: {},
  }, defaults);
  assert.equal(envelopeOf(notJson.body).data_base64, btoa("{broken"));
});

Deno.test("a structured event round-trips through unwrapping, which marks the mode", () => {
  const wire = encodeCloudEvent("structured", {
    body: utf8.encode('{"a":1}'),
    contentType: "application/json",
    headers: {},
  }, defaults);
  const unwrapped = unwrapCloudEvent({
    channel: "c",
    body: wire.body,
    headers: {},
    contentType: wire.contentType,
    idempotencyKey: "k",
  });
  assert.ok(!("code" in unwrapped));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(unwrapped.body)), { a: 1 });
  assert.equal(unwrapped.headers["ce-id"], "e-1");
  assert.equal(unwrapped.headers[CLOUDEVENTS_MODE_HEADER], "structured");
  assert.equal(unwrapped.idempotencyKey, "k", "the transport's fields are kept");
  assert.equal(inboundCloudEventMode(unwrapped.headers), "structured");
  assert.equal(inboundCloudEventMode({ "ce-specversion": "1.0" }), "binary");
  assert.equal(inboundCloudEventMode({}), undefined);
});
