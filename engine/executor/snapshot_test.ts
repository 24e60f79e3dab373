import assert from "node:assert/strict";
import { loadBpmn } from "../bpmn/mod.ts";
import { ManualClock } from "../core/mod.ts";
import { decodeSnapshot, encodeSnapshot, parseContainer, renderContainer } from "./snapshot.ts";
import { step } from "./step.ts";

const PROCESS = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:extensionElements><q:variables><q:variable name="secret" transient="true"/></q:variables></bpmn:extensionElements>
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
    <bpmn:userTask id="w"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="w" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;

async function parked(variables: Record<string, unknown>) {
  const plan = (await loadBpmn(new TextEncoder().encode(PROCESS), { uri: "p.bpmn" })).plan!;
  const r = await step(plan, undefined, { type: "start", instanceId: "i-1", variables }, {
    clock: new ManualClock(0),
  });
  return { plan, state: r.state! };
}

Deno.test("container: escapes line breaks, backslashes and '=' in keys; never '|'", () => {
  const entries = new Map([["b=key", "x\ny\\z|w"], ["a", "v=1"]]);
  const text = renderContainer(entries);
  assert.equal(text, "a=v=1\nb\\=key=x\\ny\\\\z|w\n");
  assert.deepEqual(parseContainer(text), entries);
  const tricky = new Map([
    ["c\\d\ne", "p\rq"],
    ["", "empty key"],
    ["plain", ""],
    ["x\\", "y"],
  ]);
  assert.deepEqual(parseContainer(renderContainer(tricky)), tricky);
  assert.throws(() => parseContainer("no separator\n"), /has no '='/);
  assert.throws(() => parseContainer("escaped\\=only\n"), /has no '='/);
});

Deno.test("snapshot: all-string variables are written bare at generation 2", async () => {
  const { plan, state } = await parked({ note: "plain" });
  const text = new TextDecoder().decode(encodeSnapshot(plan, state));
  assert.match(text, /^sutra\.generation=2$/m);
  assert.match(text, /^sutra\.var\.note=plain$/m);
  assert.match(text, /^sutra\.waiting=w$/m);
  assert.equal(
    decodeSnapshot(plan, encodeSnapshot(plan, state)).state!.scopes.get(1)!.vars.get("note"),
    "plain",
  );
});

Deno.test("snapshot: a typed variable moves it to generation 4; transient variables are not written", async () => {
  const { plan, state } = await parked({ note: "plain", amount: 12.5, secret: "x" });
  const text = new TextDecoder().decode(encodeSnapshot(plan, state));
  assert.match(text, /^sutra\.generation=4$/m);
  assert.match(text, /^sutra\.var\.note=s\|plain$/m);
  assert.match(text, /^sutra\.var\.amount=n\|12\.5$/m);
  assert.doesNotMatch(text, /secret/);
});

Deno.test("snapshot: a malformed counter reads as zero; a node the plan lacks is a diagnostic", async () => {
  const { plan, state } = await parked({});
  const text = new TextDecoder().decode(encodeSnapshot(plan, state));
  const lenient = decodeSnapshot(
    plan,
    new TextEncoder().encode(text.replace(/^sutra\.audit\.seq=\d+$/m, "sutra.audit.seq=x")),
  );
  assert.equal(lenient.state!.auditSeq, 0);
  const broken = decodeSnapshot(
    plan,
    new TextEncoder().encode(text.replace(/"node":"w"/, '"node":"gone"')),
  );
  assert.equal(broken.diagnostics![0].code, "SUTRA.RUNTIME.SNAPSHOT.INVALID");
  assert.match(broken.diagnostics![0].message, /no node 'gone'/);
});
