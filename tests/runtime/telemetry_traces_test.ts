/**
 * One order's trace across two engines, exported to a local OTLP/HTTP
 * receiver: the order continues its sender's `traceparent` and runs as
 * `sutra.dispatch` with the stages as children; parking ends that trace;
 * the confirmation that resumes it starts its own trace, linked to the
 * span that parked it; the resumed step's outbox sends continue that trace
 * and hand it on, so the receiving engine's `sutra.dispatch` is a child of
 * the sender's `sutra.outbox.send` (and a task parked for a pull worker
 * carries the same parent in its headers).
 */
import assert from "node:assert/strict";
import { startOtlpReceiver } from "../support/otlp_receiver.ts";
import type { ReceivedSpan } from "../support/otlp_receiver.ts";
import { post, until } from "./support.ts";
import { telemetryPackage, tracedEngine } from "./telemetry_support.ts";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

function one(
  spans: ReceivedSpan[],
  what: string,
  match: (s: ReceivedSpan) => boolean,
): ReceivedSpan {
  const found = spans.filter(match);
  assert.equal(found.length, 1, `exactly one ${what}: ${JSON.stringify(found.map((s) => s.name))}`);
  return found[0];
}

Deno.test("one message's spans: intake → wait → resume → outbox → the next engine", async () => {
  await using receiver = startOtlpReceiver();
  const downstream = await tracedEngine(receiver.url);
  const engine = await tracedEngine(receiver.url);
  try {
    const archive = await telemetryPackage(`${downstream.url}/channels/tel-downstream`);
    await downstream.deployments.deploy(archive);
    await engine.deployments.deploy(archive);

    const order = await post(engine, "/channels/tel-order", { orderId: "T-1" }, {
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    });
    assert.equal(order.status, 200, JSON.stringify(order.body));
    const [{ instanceId, status }] = order.body.instances as {
      instanceId: string;
      status: string;
    }[];
    assert.equal(status, "WAITING");
    const confirm = await post(engine, "/channels/tel-confirm", { orderId: "T-1" });
    assert.equal(confirm.status, 200, JSON.stringify(confirm.body));

    const isDispatchOn = (channel: string) => (s: ReceivedSpan) =>
      s.name === "sutra.dispatch" && s.attributes["sutra.channel"] === channel;
    await until(() => {
      const spans = receiver.spans();
      return Promise.resolve(
        spans.some(isDispatchOn("tel-downstream")) &&
          spans.filter((s) => s.name === "sutra.outbox.send").length === 2,
      );
    });
    const spans = receiver.spans();
    assert.deepEqual(receiver.protocolErrors, []);

    // Segment 1: the order, continuing the caller's trace, parked at Confirm.
    const first = spans.filter((s) => s.traceId === CALLER_TRACE);
    const dispatch1 = one(first, "order dispatch", isDispatchOn("tel-order"));
    assert.equal(dispatch1.parentSpanId, CALLER_SPAN);
    assert.equal(dispatch1.attributes["bpm.instance.id"], instanceId);
    for (const stage of ["sutra.decode", "sutra.resolve", "sutra.validate", "sutra.execute"]) {
      assert.equal(
        one(first, stage, (s) => s.name === stage).parentSpanId,
        dispatch1.spanId,
        stage,
      );
    }
    const execute1 = one(first, "execute", (s) => s.name === "sutra.execute");
    const commit1 = one(first, "commit", (s) => s.name === "sutra.commit");
    assert.equal(commit1.parentSpanId, execute1.spanId);
    assert.equal(execute1.attributes["bpm.instance.id"], instanceId);
    assert.equal(commit1.attributes["bpm.instance.id"], instanceId);
    assert.equal(commit1.attributes["bpm.process.id"], "order");
    assert.ok(dispatch1.endNs >= commit1.endNs, "the segment ends with its delivery");

    // Segment 2: the confirmation resumes it in a trace of its own, linked to the park.
    const dispatch2 = one(spans, "confirm dispatch", isDispatchOn("tel-confirm"));
    assert.notEqual(dispatch2.traceId, CALLER_TRACE);
    assert.equal(dispatch2.parentSpanId, undefined);
    assert.equal(dispatch2.attributes["bpm.instance.id"], instanceId);
    assert.deepEqual(dispatch2.links.map((l) => [l.traceId, l.spanId]), [
      [CALLER_TRACE, commit1.spanId],
    ]);
    const second = spans.filter((s) => s.traceId === dispatch2.traceId);
    const commit2 = one(
      second,
      "resume commit",
      (s) => s.name === "sutra.commit" && s.attributes["bpm.instance.id"] === instanceId,
    );

    // The resumed step's two sends continue its trace, children of its commit.
    const sends = second.filter((s) => s.name === "sutra.outbox.send");
    assert.equal(sends.length, 2);
    for (const send of sends) {
      assert.equal(send.parentSpanId, commit2.spanId);
      assert.equal(send.attributes["bpm.instance.id"], instanceId);
    }
    const httpSend = one(
      sends,
      "http send",
      (s) => String(s.attributes["sutra.outbox.destination"]).includes("tel-downstream"),
    );

    // The next engine's dispatch is a child of that send: one trace across both.
    const downstreamDispatch = one(spans, "downstream dispatch", isDispatchOn("tel-downstream"));
    assert.equal(downstreamDispatch.traceId, dispatch2.traceId);
    assert.equal(downstreamDispatch.parentSpanId, httpSend.spanId);
    assert.notEqual(
      downstreamDispatch.resource["service.instance.id"],
      dispatch2.resource["service.instance.id"],
    );

    // The task parked for a pull worker names the other send as its parent.
    const pullSend = sends.find((s) => s !== httpSend)!;
    const { rows } = await engine.database.query<{ headers: Record<string, string> }>(
      "select headers from external_tasks",
    );
    assert.deepEqual(rows.map((r) => r.headers.traceparent), [
      `00-${dispatch2.traceId}-${pullSend.spanId}-01`,
    ]);
  } finally {
    await engine.stop();
    await downstream.stop();
  }
});

Deno.test("a CloudEvent's traceparent attribute and an unsampled parent are honoured", async () => {
  await using receiver = startOtlpReceiver();
  const engine = await tracedEngine(receiver.url);
  try {
    await engine.deployments.deploy(await telemetryPackage("http://127.0.0.1:9/unused"));
    const ce = await post(engine, "/channels/tel-order", { orderId: "T-2" }, {
      "ce-specversion": "1.0",
      "ce-id": "e-1",
      "ce-source": "test",
      "ce-type": "order",
      "ce-traceparent": `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    });
    assert.equal(ce.status, 200, JSON.stringify(ce.body));
    const unsampled = await post(engine, "/channels/tel-order", { orderId: "T-3" }, {
      traceparent: `00-${"a".repeat(32)}-${CALLER_SPAN}-00`,
    });
    assert.equal(unsampled.status, 200);
    await until(() => Promise.resolve(receiver.spans().some((s) => s.name === "sutra.dispatch")));
    // One more delivery, so the unsampled one would have been exported by now if it were.
    const marker = await post(engine, "/channels/tel-order", { orderId: "T-4" });
    const markerId = (marker.body.instances as { instanceId: string }[])[0].instanceId;
    await until(() =>
      Promise.resolve(
        receiver.spans().some((s) =>
          s.name === "sutra.dispatch" && s.attributes["bpm.instance.id"] === markerId
        ),
      )
    );
    const dispatches = receiver.spans().filter((s) => s.name === "sutra.dispatch");
    assert.equal(dispatches.length, 2);
    assert.equal(dispatches[0].traceId, CALLER_TRACE);
    assert.equal(dispatches[0].parentSpanId, CALLER_SPAN);
    assert.ok(receiver.spans().every((s) => s.traceId !== "a".repeat(32)));
  } finally {
    await engine.stop();
  }
});
