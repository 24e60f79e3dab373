import assert from "node:assert/strict";
import { SpanBatches } from "./span_batches.ts";
import { tracesEnvelope } from "./otlp_json.ts";
import { SutraTracer } from "./tracer.ts";

function batches(batchSize: number) {
  const [head, tail] = tracesEnvelope({ "service.name": "sutra" }, { name: "s", version: "1" });
  const out = new SpanBatches({ head, tail, batchSize });
  return { out, tracer: new SutraTracer((s) => out.add(s)) };
}

/** The span names of each request body. */
function names(bodies: { body: Uint8Array }[]): string[][] {
  return bodies.map(({ body }) =>
    JSON.parse(new TextDecoder().decode(body)).resourceSpans[0].scopeSpans[0].spans
      .map((s: { name: string }) => s.name)
  );
}

Deno.test("span batches: whole requests of at most batchSize spans, in order", () => {
  const { out, tracer } = batches(2);
  for (const name of ["a", "b", "c"]) tracer.startSpan(name).end();
  assert.equal(out.size, 3);
  assert.equal(out.ready, true, "a full batch waits to be sent");
  const taken = out.take();
  assert.deepEqual(names(taken), [["a", "b"], ["c"]]);
  assert.deepEqual(taken.map((b) => b.spans), [2, 1]);
  assert.equal(out.size, 0);
  for (const batch of taken) out.release(batch);
  // A reused buffer carries nothing of what it held before.
  tracer.startSpan("d").end();
  assert.deepEqual(names(out.take()), [["d"]]);
  assert.deepEqual(out.take(), []);
});

Deno.test("span batches: a span larger than a buffer, and text beyond ASCII, stay whole", () => {
  const { out, tracer } = batches(512);
  tracer.startSpan("small").end();
  const big = "é€😀".repeat(40_000);
  tracer.startSpan("big", { attributes: { big } }).end();
  tracer.startSpan("after").end();
  const taken = out.take();
  assert.deepEqual(names(taken), [["small"], ["big", "after"]]);
  const span = JSON.parse(new TextDecoder().decode(taken[1].body)).resourceSpans[0].scopeSpans[0]
    .spans[0];
  assert.equal(span.attributes[0].value.stringValue, big);
});
