import assert from "node:assert/strict";
import { TraceFlags } from "@opentelemetry/api";
import {
  extractTraceContext,
  formatTraceparent,
  injectTraceContext,
  parseTraceparent,
} from "./context.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

Deno.test("traceparent: a valid header parses and formats back", () => {
  const parsed = parseTraceparent(`00-${TRACE}-${SPAN}-01`);
  assert.deepEqual(
    { ...parsed, traceState: undefined },
    {
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: undefined,
    },
  );
  assert.equal(formatTraceparent(parsed!), `00-${TRACE}-${SPAN}-01`);
  assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.traceFlags, TraceFlags.NONE);
});

Deno.test("traceparent: malformed, all-zero and forbidden versions are refused", () => {
  for (
    const bad of [
      undefined,
      "",
      `00-${TRACE}-${SPAN}`,
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-zz`,
    ]
  ) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
  // A later version is read by its first four fields.
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01-more`)?.spanId, SPAN);
});

Deno.test("extract: the traceparent header first, then a CloudEvent's attribute; names in any case", () => {
  assert.equal(extractTraceContext({ TraceParent: `00-${TRACE}-${SPAN}-01` })?.traceId, TRACE);
  assert.equal(extractTraceContext({ "ce-traceparent": `00-${TRACE}-${SPAN}-01` })?.spanId, SPAN);
  const both = extractTraceContext({
    traceparent: `00-${TRACE}-${SPAN}-01`,
    "ce-traceparent": `00-${"1".repeat(32)}-${SPAN}-01`,
  });
  assert.equal(both?.traceId, TRACE);
  assert.equal(extractTraceContext({ traceparent: "junk" }), undefined);
  assert.equal(extractTraceContext(undefined), undefined);
  const state = extractTraceContext({
    traceparent: `00-${TRACE}-${SPAN}-01`,
    tracestate: "a=1,b=2",
  });
  assert.equal(state?.traceState?.serialize(), "a=1,b=2");
  assert.equal(state?.traceState?.get("b"), "2");
});

Deno.test("inject: replaces every spelling of the parent and keeps the other headers", () => {
  const span = parseTraceparent(`00-${TRACE}-${SPAN}-01`, "k=v")!;
  const out = injectTraceContext(
    { TraceParent: "old", "x-kept": "1", "ce-traceparent": "old", TraceState: "old" },
    span,
  );
  assert.deepEqual(out, {
    "x-kept": "1",
    traceparent: `00-${TRACE}-${SPAN}-01`,
    tracestate: "k=v",
    "ce-traceparent": `00-${TRACE}-${SPAN}-01`,
  });
  assert.deepEqual(injectTraceContext({}, { ...span, traceState: undefined }), {
    traceparent: `00-${TRACE}-${SPAN}-01`,
  });
});
