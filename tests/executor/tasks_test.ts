/** Task kinds: service (registered, channel call, template, data), script, business rule, user, receive, send, manual. */
import assert from "node:assert/strict";
import { FeelContext, type FeelValue, toJs } from "../../lang/feel/mod.ts";
import { evaluate, parseRuleset } from "../../lang/srl/mod.ts";
import type { DecisionPort, TaskCall, TaskPort } from "../../engine/executor/mod.ts";
import { bpmn, Instance, planOf } from "./harness.ts";

const SECOND = 1000;

function serviceTask(attributes: string, extensions = "", after = ""): string {
  return bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="task"/>
    <bpmn:serviceTask id="task" ${attributes}>
      <bpmn:extensionElements>${extensions}</bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="e"/><bpmn:endEvent id="e"/>${after}`);
}

function tasks(
  run: (call: TaskCall) => ReturnType<TaskPort["run"]>,
): { port: TaskPort; calls: TaskCall[] } {
  const calls: TaskCall[] = [];
  return { calls, port: { run: (call) => (calls.push(call), run(call)) } };
}

Deno.test("registered task: called with the variables; its outputs become variables", async () => {
  const t = tasks((call) => ({
    outputs: { score: toJs(call.variables.get("income")!) as number / 1000 },
  }));
  const run = new Instance(await planOf(serviceTask(`implementation="registered:score"`)), {
    ports: { tasks: t.port },
  });
  await run.start({ variables: { income: 52000 } });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.score, 52);
  assert.deepEqual(t.calls.map((c) => [c.name, c.node, c.attempt, c.instanceId]), [[
    "score",
    "task",
    1,
    "inst-1",
  ]]);
});

Deno.test("registered task with q:retry: a failed attempt parks on a backoff timer, then runs again", async () => {
  let attempts = 0;
  const t = tasks(
    () => (++attempts < 3
      ? { failure: { code: "SUTRA.TASK.UNAVAILABLE", message: "busy" } }
      : { outputs: { ok: true } }),
  );
  const run = new Instance(
    await planOf(serviceTask(
      `implementation="registered:flaky"`,
      `<q:retry maxAttempts="4" initialDelay="PT1S" backoffCoefficient="2.0" maxDelay="PT1M"/>`,
    )),
    { ports: { tasks: t.port } },
  );
  const t0 = run.clock.now();
  await run.start();
  assert.equal(run.status, "WAITING");
  assert.equal(run.wait("task", "retry").due, t0 + SECOND);
  assert.equal(run.state!.attempts.get("task"), 1);
  await run.fire("task", "retry");
  assert.equal(run.wait("task", "retry").due, t0 + SECOND + 2 * SECOND);
  await run.fire("task", "retry");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(t.calls.map((c) => c.attempt), [1, 2, 3]);
  assert.equal(run.state!.attempts.size, 0, "the counter is dropped once the task succeeds");
});

Deno.test("registered task: an exhausted retry budget fails the instance with RETRY.EXHAUSTED and the attempts", async () => {
  const t = tasks(() => {
    throw new Error("connection refused");
  });
  const run = new Instance(
    await planOf(serviceTask(
      `implementation="registered:down"`,
      `<q:retry maxAttempts="2" initialDelay="PT5S"/>`,
    )),
    { ports: { tasks: t.port } },
  );
  await run.start();
  await run.fire("task", "retry");
  assert.equal(run.status, "FAILED");
  assert.deepEqual(run.state!.failure, {
    code: "SUTRA.RUNTIME.RETRY.EXHAUSTED",
    message: "task 'task' failed after 2 attempt(s): connection refused",
    node: "task",
    attributes: { cause: "SUTRA.RUNTIME.TASK.FAILED", attempts: 2 },
  });
  assert.equal(
    run.state!.attempts.get("task"),
    2,
    "the failed instance shows the attempts it burned",
  );
});

Deno.test("registered task: a non-retryable code fails at once, without using the budget", async () => {
  const t = tasks(() => ({ failure: { code: "SUTRA.TASK.VALIDATION", message: "bad input" } }));
  const run = new Instance(
    await planOf(serviceTask(
      `implementation="registered:strict"`,
      `<q:retry maxAttempts="5" nonRetryableCodes="SUTRA.TASK.VALIDATION"/>`,
    )),
    { ports: { tasks: t.port } },
  );
  await run.start();
  assert.equal(run.status, "FAILED");
  assert.equal(run.state!.failure!.code, "SUTRA.RUNTIME.RETRY.EXHAUSTED");
  assert.equal(t.calls.length, 1);
});

Deno.test("registered task: a BPMN error goes to the error boundary and never consumes retries", async () => {
  const t = tasks(() => ({ bpmnError: { code: "DECLINED", message: "card declined" } }));
  const run = new Instance(
    await planOf(
      serviceTask(
        `implementation="registered:charge"`,
        `<q:retry maxAttempts="3"/>`,
        `<bpmn:boundaryEvent id="declined" attachedToRef="task"><bpmn:errorEventDefinition errorRef="Declined"/></bpmn:boundaryEvent>
     <bpmn:sequenceFlow id="f3" sourceRef="declined" targetRef="sorry"/><bpmn:endEvent id="sorry"/>`,
      ).replace(`<bpmn:process`, `<bpmn:error id="Declined" errorCode="DECLINED"/><bpmn:process`),
    ),
    {
      ports: { tasks: t.port },
    },
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("sorry"));
  assert.equal(t.calls.length, 1);
});

const CALL = (extensions: string, after = "") =>
  serviceTask(`implementation="channel:scoring"`, extensions, after).replace(
    `<bpmn:serviceTask id="task"`,
    `<bpmn:serviceTask id="task"`,
  );

Deno.test("channel call: emits the request, waits for the correlated response, whose payload is the result", async () => {
  const run = new Instance(await planOf(CALL("")));
  const r = await run.start({ variables: { applicant: "A-1" } });
  assert.equal(run.status, "WAITING");
  assert.deepEqual(r.effects.emissions.map((e) => [e.channel, e.idempotencyKey]), [[
    "scoring",
    "inst-1:task:2:1",
  ]]);
  assert.deepEqual(r.effects.waitsArmed.map((w) => [w.purpose, w.channel]), [[
    "response",
    "scoring",
  ]]);
  await run.message("task", { score: 710 }, { purpose: "response" });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.score, 710);
});

Deno.test("channel call timeout without q:retry: a catchable BPMN error SUTRA.DISPATCH.CHANNEL_CALL.TIMEOUT", async () => {
  const run = new Instance(
    await planOf(
      CALL(
        `<q:timeout duration="PT2M"/>`,
        `<bpmn:boundaryEvent id="slow" attachedToRef="task"><bpmn:errorEventDefinition errorRef="Timeout"/></bpmn:boundaryEvent>
     <bpmn:sequenceFlow id="f3" sourceRef="slow" targetRef="fallback"/><bpmn:endEvent id="fallback"/>`,
      ).replace(
        `<bpmn:process`,
        `<bpmn:error id="Timeout" errorCode="SUTRA.DISPATCH.CHANNEL_CALL.TIMEOUT"/><bpmn:process`,
      ),
    ),
  );
  await run.start();
  const r = await run.fire("task", "timeout");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("fallback"));
  assert.deepEqual(r.effects.withdrawals, ["inst-1:task:2:1"]);
});

Deno.test("channel call with q:retry: a timeout re-issues with a fresh key after the backoff; a late answer meanwhile is refused", async () => {
  const run = new Instance(
    await planOf(CALL(
      `<q:timeout duration="PT2M"/><q:retry maxAttempts="2" initialDelay="PT10S"/>`,
    )),
  );
  await run.start();
  const timedOut = await run.fire("task", "timeout");
  assert.deepEqual(timedOut.effects.withdrawals, ["inst-1:task:2:1"]);
  const response = run.wait("task", "response");
  const late = await run.attempt({
    type: "message",
    wait: response.id,
    message: { payload: "late" },
  });
  assert.equal(late.refusal?.code, "SUTRA.DISPATCH.CHANNEL_CALL.RETRY_PENDING");
  const again = await run.fire("task", "retry");
  assert.deepEqual(again.effects.emissions.map((e) => e.idempotencyKey), ["inst-1:task:2:2"]);
  assert.equal(run.wait("task", "response").id, response.id, "the correlation stays the same");
  await run.message("task", { ok: 1 }, { purpose: "response" });
  assert.equal(run.status, "COMPLETED");
});

Deno.test("channel call: a poisoned request delivery is a failed attempt (exhausted here: no budget left)", async () => {
  const run = new Instance(
    await planOf(CALL(`<q:timeout duration="PT2M"/><q:retry maxAttempts="1"/>`)),
  );
  await run.start();
  await run.step({
    type: "failure",
    wait: run.wait("task", "response").id,
    code: "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED",
    message: "gave up delivering",
  });
  assert.equal(run.status, "FAILED");
  assert.equal(run.state!.failure!.code, "SUTRA.RUNTIME.RETRY.EXHAUSTED");
  assert.equal(run.state!.failure!.attributes!.cause, "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED");
  assert.equal(run.state!.waits.size, 0);
});

Deno.test("template task with q:reply: the rendered body is the reply", async () => {
  const run = new Instance(
    await planOf(serviceTask(
      `implementation="receipt.hbs"`,
      `<q:reply contentType="text/html"/>`,
    )),
    {
      ports: {
        templates: {
          render: ({ template, variables }) => ({
            body: `<p>${template} for ${toJs(variables.get("name")!)}</p>`,
            contentType: "text/plain",
          }),
        },
      },
    },
  );
  const r = await run.start({ variables: { name: "Ada" } });
  assert.deepEqual(r.effects.replies.map((x) => [x.body, x.contentType]), [[
    "<p>receipt.hbs for Ada</p>",
    "text/html",
  ]]);
});

Deno.test("respond-and-continue: the reply goes out, the instance parks, and a self-resume runs the rest", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="ack"/>
    <bpmn:task id="ack"><bpmn:extensionElements><q:reply continue="true"/></bpmn:extensionElements></bpmn:task>
    <bpmn:sequenceFlow id="f2" sourceRef="ack" targetRef="slow"/>
    <bpmn:scriptTask id="slow" scriptFormat="feel"><bpmn:script>{tail: "done"}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f3" sourceRef="slow" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  const r = await run.start();
  assert.equal(r.effects.replies[0].continue, true);
  assert.equal(run.status, "WAITING");
  assert.deepEqual(r.effects.waitsArmed.map((w) => [w.purpose, w.due]), [[
    "continue",
    run.clock.now(),
  ]]);
  await run.fire("ack", "continue");
  assert.equal(run.vars.tail, "done");
  assert.equal(run.status, "COMPLETED");
});

Deno.test("script task: a context result merges into the variables; output associations see `result`", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="merge"/>
    <bpmn:scriptTask id="merge" scriptFormat="feel"><bpmn:script>{net: gross * 0.8, tax: gross * 0.2}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="merge" targetRef="mapped"/>
    <bpmn:scriptTask id="mapped" scriptFormat="feel">
      <bpmn:script>date("2026-03-01") + duration("P" + string(days) + "D")</bpmn:script>
      <bpmn:dataOutputAssociation id="o1"><bpmn:assignment><bpmn:from>result</bpmn:from><bpmn:to>due</bpmn:to></bpmn:assignment></bpmn:dataOutputAssociation>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="f3" sourceRef="mapped" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { gross: 100, days: 30 } });
  assert.equal(run.vars.net, 80);
  assert.equal(run.vars.tax, 20);
  assert.equal(run.vars.due, "2026-03-31");
});

const RULE_TASK = (implementation: string) =>
  bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="decide"/>
    <bpmn:businessRuleTask id="decide" implementation="${implementation}"/>
    <bpmn:sequenceFlow id="f2" sourceRef="decide" targetRef="route"/>
    <bpmn:exclusiveGateway id="route" default="review"/>
    <bpmn:sequenceFlow id="approve" sourceRef="route" targetRef="approved"><bpmn:conditionExpression>decision = "approve"</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="review" sourceRef="route" targetRef="reviewed"/>
    <bpmn:endEvent id="approved"/><bpmn:endEvent id="reviewed"/>`);

Deno.test("business-rule task (DMN): the decision port gets the variables; named outputs merge back", async () => {
  const requests: { source: string; decision?: string; risk: unknown }[] = [];
  const decisions: DecisionPort = {
    evaluate: ({ source, decision, inputs }) => {
      requests.push({ source, decision, risk: toJs(inputs.get("riskScore")!) });
      return {
        outputs: {
          decision: (toJs(inputs.get("riskScore")!) as number) < 50 ? "approve" : "review",
        },
      };
    },
  };
  const plan = await planOf(RULE_TASK("approval-decide.dmn#approvalDecide"));
  const low = new Instance(plan, { ports: { decisions } });
  await low.start({ variables: { riskScore: 20 } });
  assert.ok(low.completed.has("approved"));
  const high = new Instance(plan, { ports: { decisions } });
  await high.start({ variables: { riskScore: 80 } });
  assert.ok(high.completed.has("reviewed"));
  assert.deepEqual(requests[0], {
    source: "approval-decide.dmn",
    decision: "approvalDecide",
    risk: 20,
  });
});

Deno.test("business-rule task (.srl): a ruleset's set() outputs merge back", async () => {
  const parsed = parseRuleset(`
rule "low-risk" when riskScore < 50 then set(decision, "approve"); end
rule "high-risk" when riskScore >= 50 then set(decision, "review"); end`);
  assert.equal(parsed.diagnostics, undefined);
  const decisions: DecisionPort = {
    evaluate: ({ inputs }) => {
      const r = evaluate(
        parsed.ruleset!,
        new FeelContext(new Map(inputs) as Map<string, FeelValue>),
      );
      if (r.diagnostics) {
        return { failure: { code: r.diagnostics[0].code, message: r.diagnostics[0].message } };
      }
      return { outputs: Object.fromEntries(r.outputs) };
    },
  };
  const run = new Instance(await planOf(RULE_TASK("risk.srl")), { ports: { decisions } });
  await run.start({ variables: { riskScore: 10 } });
  assert.equal(run.vars.decision, "approve");
  assert.ok(run.completed.has("approved"));
});

Deno.test("business-rule task: a failing decision fails the instance at the task, naming the cause", async () => {
  const decisions: DecisionPort = {
    evaluate: () => ({ failure: { code: "SUTRA.DMN.NO_RULE", message: "no rule matched" } }),
  };
  const run = new Instance(await planOf(RULE_TASK("approval-decide.dmn#approvalDecide")), {
    ports: { decisions },
  });
  await run.start({ variables: { riskScore: 10 } });
  assert.equal(run.status, "FAILED");
  assert.deepEqual(
    [run.state!.failure!.code, run.state!.failure!.node, run.state!.failure!.attributes],
    ["SUTRA.RUNTIME.TASK.FAILED", "decide", { cause: "SUTRA.DMN.NO_RULE" }],
  );
});

Deno.test("receive task and manual task: one waits for its message, the other passes through", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sign"/>
    <bpmn:manualTask id="sign"/>
    <bpmn:sequenceFlow id="f2" sourceRef="sign" targetRef="receipt"/>
    <bpmn:receiveTask id="receipt"><bpmn:extensionElements><q:source channel="receipts" name="receiptDoc"/></bpmn:extensionElements></bpmn:receiveTask>
    <bpmn:sequenceFlow id="f3" sourceRef="receipt" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.ok(run.completed.has("sign"));
  assert.deepEqual(run.waitingAt(), ["receipt"]);
  await run.message("receipt", { no: 9 });
  assert.deepEqual(run.vars.receiptDoc, { no: 9 });
  assert.equal(run.status, "COMPLETED");
});

Deno.test("send task: emits its message to the channel and moves on without waiting", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="notify"/>
    <bpmn:sendTask id="notify">
      <bpmn:extensionElements><q:send channel="mail"><q:header name="to" value="customer.email"/></q:send></bpmn:extensionElements>
      <bpmn:ioSpecification><bpmn:dataInput id="mail"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="i1"><bpmn:targetRef>mail</bpmn:targetRef><bpmn:transformation>"Hello " + customer.name</bpmn:transformation></bpmn:dataInputAssociation>
    </bpmn:sendTask>
    <bpmn:sequenceFlow id="f2" sourceRef="notify" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  const r = await run.start({
    variables: { customer: { name: "Ada", email: "ada@example.test" } },
  });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(r.effects.emissions.map((e) => [e.channel, e.headers, e.body]), [
    ["mail", { to: "ada@example.test" }, "Hello Ada"],
  ]);
});
