/**
 * `q:reply mode=…` over HTTP and a channel's `cloudevents-mode` on `q:send`:
 * binary mode adds `ce-*` headers and keeps the body, structured mode makes
 * the body an `application/cloudevents+json` envelope, `match-inbound`
 * answers the way the request came, and `native` stays as it was.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { withDeployed } from "./support.ts";

const PACKAGE = "tests/fixtures/runtime/cloudevents_modes";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
// The outbox worker may try the unreachable destinations meanwhile; the rows stay either way.
const options = { env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT1H" } };

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(
  engine: RunningEngine,
  channel: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  // A connection per call: each answer is judged on its own.
  const client = Deno.createHttpClient({});
  try {
    const response = await fetch(`${engine.url}/channels/${channel}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      client,
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  } finally {
    client.close();
  }
}

function ceHeaders(headers: Headers): string[] {
  return [...headers.keys()].filter((k) => k.startsWith("ce-")).sort();
}

Deno.test("q:reply modes on HTTP: native, binary, structured", () =>
  withDeployed(PACKAGE, options, async (engine) => {
    const native = await call(engine, "ce-native", '{"n": 1}');
    assert.equal(native.status, 200);
    assert.deepEqual(native.body, { echo: 1 });
    assert.deepEqual(ceHeaders(native.headers), []);

    const binary = await call(engine, "ce-binary", '{"n": 2}');
    assert.equal(binary.status, 200);
    assert.deepEqual(binary.body, { echo: 2 }, "binary mode keeps the body");
    assert.equal(binary.headers.get("content-type"), "application/json");
    assert.deepEqual(ceHeaders(binary.headers), [
      "ce-id",
      "ce-source",
      "ce-specversion",
      "ce-subject",
      "ce-time",
      "ce-type",
    ]);
    assert.equal(binary.headers.get("ce-specversion"), "1.0");
    assert.equal(binary.headers.get("ce-source"), "sutra://test/ce-modes/binary");
    assert.equal(binary.headers.get("ce-type"), "com.example.answer", "a q:header overrides");
    assert.match(binary.headers.get("ce-time")!, ISO);
    assert.ok(binary.headers.get("ce-id"));
    assert.equal(binary.headers.get("x-plain"), "kept");

    const structured = await call(engine, "ce-structured", '{"n": 3}');
    assert.equal(structured.status, 200);
    assert.equal(structured.headers.get("content-type"), "application/cloudevents+json");
    assert.deepEqual(ceHeaders(structured.headers), []);
    const event = structured.body;
    assert.equal(event.specversion, "1.0");
    assert.equal(event.source, "sutra://test/ce-modes/structured");
    assert.equal(event.type, "structured.structuredAnswer");
    assert.equal(event.datacontenttype, "application/json");
    assert.match(event.time as string, ISO);
    assert.equal(typeof event.id, "string");
    assert.equal(typeof event.subject, "string");
    assert.deepEqual(event.data, { echo: 3 });
  }));

Deno.test("q:reply match-inbound answers in the mode the request came in", () =>
  withDeployed(PACKAGE, options, async (engine) => {
    const plain = await call(engine, "ce-match", '{"n": 1}');
    assert.deepEqual(plain.body, { echo: 1 });
    assert.deepEqual(ceHeaders(plain.headers), []);

    const binary = await call(engine, "ce-match", '{"n": 2}', {
      "ce-specversion": "1.0",
      "ce-id": "req-2",
      "ce-source": "urn:test:caller",
      "ce-type": "com.example.ask",
    });
    assert.equal(binary.status, 200);
    assert.deepEqual(binary.body, { echo: 2 });
    assert.equal(binary.headers.get("ce-specversion"), "1.0");
    assert.equal(binary.headers.get("ce-source"), "sutra://test/ce-modes/match");

    const envelope = {
      specversion: "1.0",
      id: "req-3",
      source: "urn:test:caller",
      type: "com.example.ask",
      datacontenttype: "application/json",
      data: { n: 3 },
    };
    const structured = await call(engine, "ce-match-structured", JSON.stringify(envelope), {
      "content-type": "application/cloudevents+json",
    });
    assert.equal(structured.status, 200, JSON.stringify(structured.body));
    assert.equal(structured.headers.get("content-type"), "application/cloudevents+json");
    assert.equal(structured.body.type, "matchStructured.matchStructuredAnswer");
    assert.deepEqual(structured.body.data, { echo: 3 });
  }));

Deno.test("a q:send to a CloudEvents channel lands in the outbox as that mode", () =>
  withDeployed(PACKAGE, options, async (engine) => {
    const sent = await call(engine, "ce-send", '{"n": 7}');
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const { rows } = await engine.database.query<{
      destination: string;
      headers: Record<string, string>;
      body: Uint8Array;
      content_type: string;
      idempotency_key: string;
    }>(
      "select destination, headers, body, content_type, idempotency_key from outbox order by destination",
    );
    assert.equal(rows.length, 2);
    const [binary, structured] = rows;
    assert.equal(structured.destination, "POST http://127.0.0.1:9/structured");
    assert.equal(structured.content_type, "application/cloudevents+json");
    assert.deepEqual(structured.headers, { "x-trace": "t-1" });
    const event = JSON.parse(new TextDecoder().decode(structured.body));
    assert.equal(event.id, structured.idempotency_key, "the id is stable across outbox attempts");
    assert.equal(event.source, "sutra://test/ce-modes/send");
    assert.equal(event.type, "send.Structured");
    assert.deepEqual(event.data, { n: 7 });

    assert.equal(binary.destination, "POST http://127.0.0.1:9/binary");
    assert.equal(binary.content_type, "application/json");
    assert.deepEqual(JSON.parse(new TextDecoder().decode(binary.body)), { n: 7 });
    assert.equal(binary.headers["x-trace"], "t-1");
    assert.equal(binary.headers["ce-specversion"], "1.0");
    assert.equal(binary.headers["ce-id"], binary.idempotency_key);
    assert.equal(binary.headers["ce-type"], "send.Binary");
    assert.match(binary.headers["ce-time"], ISO);
  }));
