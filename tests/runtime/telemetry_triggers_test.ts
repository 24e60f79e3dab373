/**
 * Steps no inbound message of a channel starts are traced like one, to a
 * local OTLP/HTTP receiver: a timer's fire runs as a `sutra.dispatch` root
 * (`sutra.trigger=timer`) linked to the span that parked the instance,
 * with its `sutra.execute` and `sutra.commit` below; an external task's
 * completion runs through the intake as a message continuing the trace of
 * the send that parked the task, and links to the park the same way.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import { fastForwardUntil } from "../../engine/runtime/timers/mod.ts";
import { startOtlpReceiver } from "../support/otlp_receiver.ts";
import type { ReceivedSpan } from "../support/otlp_receiver.ts";
import { bootEngine, post, sealDir, until } from "./support.ts";
import { deployDir, startOn, statusOf, T0, withEngine } from "./timers_support.ts";

const TRACED = { SUTRA_TELEMETRY_EXPORT_INTERVAL: "PT0.05S" };

function one(spans: ReceivedSpan[], what: string, match: (s: ReceivedSpan) => boolean) {
  const found = spans.filter(match);
  assert.equal(found.length, 1, `exactly one ${what}: ${JSON.stringify(found.map((s) => s.name))}`);
  return found[0];
}

/** The span of `name` on `instanceId` whose parent is `parent`. */
function childOf(spans: ReceivedSpan[], parent: ReceivedSpan, name: string): ReceivedSpan {
  return one(
    spans,
    `${name} under ${parent.name}`,
    (s) => s.name === name && s.parentSpanId === parent.spanId,
  );
}

Deno.test("a timer's fire is a trace of its own, linked to the step that armed it", async () => {
  await using receiver = startOtlpReceiver();
  const clock = new ManualClock(T0);
  await withEngine({
    target: { url: "memory://" },
    clock,
    env: { ...TRACED, SUTRA_TELEMETRY_OTLP_ENDPOINT: receiver.url },
  }, async (engine) => {
    await deployDir(engine, "tests/fixtures/runtime/timers");
    const id = await startOn(engine, "reminder-start", {});
    const r = await fastForwardUntil(
      { db: engine.database, clock, timeoutMs: 10_000 },
      async () => (await statusOf(engine.database, id)).status === "COMPLETED",
    );
    assert.equal(r.settled, true);
    const isFire = (s: ReceivedSpan) =>
      s.name === "sutra.dispatch" && s.attributes["sutra.trigger"] === "timer";
    await until(() => Promise.resolve(receiver.spans().some(isFire)));
    const spans = receiver.spans();
    assert.deepEqual(receiver.protocolErrors, []);

    const start = one(
      spans,
      "start dispatch",
      (s) => s.name === "sutra.dispatch" && s.attributes["sutra.channel"] === "reminder-start",
    );
    assert.equal(start.attributes["sutra.trigger"], "message");
    const armed = childOf(spans, childOf(spans, start, "sutra.execute"), "sutra.commit");

    const fire = one(spans, "timer dispatch", isFire);
    assert.notEqual(fire.traceId, start.traceId);
    assert.equal(fire.parentSpanId, undefined);
    assert.deepEqual(
      [fire.attributes["bpm.instance.id"], fire.attributes["bpm.process.id"]],
      [id, "reminder"],
    );
    assert.equal(fire.attributes["sutra.timer.purpose"], "catch");
    assert.equal(fire.attributes["sutra.outcome"], "fired");
    assert.deepEqual(fire.links.map((l) => [l.traceId, l.spanId, l.attributes["sutra.link"]]), [
      [start.traceId, armed.spanId, "resumes"],
    ]);
    const execute = childOf(spans, fire, "sutra.execute");
    assert.equal(execute.attributes["bpm.instance.id"], id);
    assert.equal(typeof execute.attributes["sutra.lane"], "number");
    const commit = childOf(spans, execute, "sutra.commit");
    assert.equal(commit.attributes["bpm.instance.id"], id);
    assert.ok(fire.endNs >= commit.endNs, "the fire's span ends with its step");
  });
});

Deno.test("an external task's completion continues the send that parked it and links to the park", async () => {
  await using receiver = startOtlpReceiver();
  const engine = await bootEngine({
    env: {
      ...TRACED,
      SUTRA_TELEMETRY_OTLP_ENDPOINT: receiver.url,
      SUTRA_OUTBOX_POLL_INTERVAL: "PT0.02S",
    },
  });
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/pull_call"));
    const started = await post(engine, "/channels/pc-start", { ref: "R-1", amount: 120 });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const [{ instanceId }] = started.body.instances as { instanceId: string }[];
    const fetched = await post(engine, "/sutra/external-tasks/fetch-and-lock", {
      workerId: "w-1",
      channels: ["pc-score"],
      asyncResponseTimeout: "PT10S",
      maxTasks: 1,
    });
    const [task] = fetched.body as unknown as { id: string }[];
    assert.ok(task, JSON.stringify(fetched.body));
    const done = await post(engine, `/sutra/external-tasks/${task.id}/complete`, {
      workerId: "w-1",
      result: { ref: "R-1", score: 710 },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));

    const isCompletion = (s: ReceivedSpan) =>
      s.name === "sutra.dispatch" && s.attributes["sutra.channel"] === "pc-score";
    await until(() => Promise.resolve(receiver.spans().some(isCompletion)));
    const spans = receiver.spans();
    const start = one(
      spans,
      "start dispatch",
      (s) => s.name === "sutra.dispatch" && s.attributes["sutra.channel"] === "pc-start",
    );
    const parked = childOf(spans, childOf(spans, start, "sutra.execute"), "sutra.commit");
    const send = childOf(spans, parked, "sutra.outbox.send");

    const completion = one(spans, "completion dispatch", isCompletion);
    assert.equal(completion.traceId, start.traceId);
    assert.equal(completion.parentSpanId, send.spanId);
    assert.equal(completion.attributes["sutra.trigger"], "message");
    assert.equal(completion.attributes["bpm.instance.id"], instanceId);
    assert.deepEqual(completion.links.map((l) => [l.spanId, l.attributes["sutra.link"]]), [
      [parked.spanId, "resumes"],
    ]);
    for (const stage of ["sutra.decode", "sutra.resolve", "sutra.validate"]) {
      childOf(spans, completion, stage);
    }
    const execute = childOf(spans, completion, "sutra.execute");
    assert.equal(childOf(spans, execute, "sutra.commit").attributes["bpm.instance.id"], instanceId);
  } finally {
    await engine.stop();
  }
});
