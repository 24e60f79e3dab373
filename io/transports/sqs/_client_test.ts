import assert from "node:assert/strict";
import {
  bodyOf,
  deliveryHeaders,
  messageAttributes,
  PACKED_HEADERS,
  textBody,
  TRANSFER_ENCODING,
} from "./_client.ts";

Deno.test("sqs attributes: a few headers travel one by one, many are packed and unpacked", () => {
  const few = messageAttributes({ "ce-id": "e-1", trace: "t" }, "application/json");
  assert.deepEqual(Object.keys(few).sort(), ["ce-id", "content-type", "trace"]);
  const headers = Object.fromEntries(Array.from({ length: 12 }, (_, n) => [`h${n}`, `v${n}`]));
  const many = messageAttributes(headers, "text/plain");
  assert.deepEqual(Object.keys(many), [PACKED_HEADERS]);
  const back = deliveryHeaders({ MessageId: "m-1", MessageAttributes: many });
  assert.equal(back.h11, "v11");
  assert.equal(back["content-type"], "text/plain");
  assert.equal(back["message-id"], "m-1");
  // A name SQS would refuse packs them too.
  assert.deepEqual(Object.keys(messageAttributes({ "bad name": "x" }, undefined)), [
    PACKED_HEADERS,
  ]);
});

Deno.test("sqs headers: system attributes and CloudEvents names", () => {
  const headers = deliveryHeaders({
    MessageId: "m-2",
    MessageAttributes: { "CE_Type": { DataType: "String", StringValue: "order" } },
    Attributes: { MessageGroupId: "g", ApproximateReceiveCount: "3", SequenceNumber: "7" },
  });
  assert.deepEqual(headers, {
    "ce-type": "order",
    "message-id": "m-2",
    "sqs-message-group-id": "g",
    "sqs-approximate-receive-count": "3",
    "sqs-sequence-number": "7",
  });
});

Deno.test("sqs bodies: text as it is, other bytes as base64 and back", () => {
  const text: Record<string, never> = {};
  assert.equal(textBody(new TextEncoder().encode("héllo"), text), "héllo");
  assert.deepEqual(text, {});
  const bytes = new Uint8Array([0, 255, 1, 2]);
  const attributes = {};
  const body = textBody(bytes, attributes);
  assert.deepEqual(attributes, {
    [TRANSFER_ENCODING]: { DataType: "String", StringValue: "base64" },
  });
  assert.deepEqual(bodyOf({ Body: body, MessageAttributes: attributes }), bytes);
});
