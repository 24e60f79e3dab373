import assert from "node:assert/strict";
import { readBpmn } from "./reader.ts";
import type { EventNode, SubProcessNode, TaskNode } from "./model.ts";

Deno.test("any prefix works: BPMN as the default namespace, q: under another prefix", () => {
  const result = readBpmn(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
      xmlns:sutra="urn:sutra:q:1.0" xmlns:vendor="http://vendor.example/x" id="d">
    <process id="p" vendor:owner="ops">
      <extensionElements>
        <vendor:properties><vendor:property name="a" value="b"/></vendor:properties>
        <sutra:process idempotent="true"/>
      </extensionElements>
      <startEvent id="s" vendor:form="x">
        <extensionElements><sutra:source channel="in"/></extensionElements>
        <outgoing>f</outgoing>
      </startEvent>
      <sequenceFlow id="f" sourceRef="s" targetRef="e"/>
      <endEvent id="e"><incoming>f</incoming></endEvent>
    </process>
  </definitions>`);
  assert.deepEqual(result.diagnostics, []);
  const p = result.definitions!.processes[0];
  assert.equal(p.q.processes[0].idempotent, true);
  const [start, end] = p.content.nodes;
  assert.deepEqual([start.outgoing, end.incoming], [["f"], ["f"]]);
  const source = start.q.sources[0];
  assert.deepEqual(
    [source.channel, source.name, source.dataClass, source.validators, source.aliases],
    ["in", "payload", "none", [], []],
  );
  assert.equal(result.qElements.length, 2);
});

Deno.test("bytes are decoded by the declared encoding or the byte-order mark", () => {
  const latin1 = new Uint8Array([
    ...new TextEncoder().encode(`<?xml version="1.0" encoding="ISO-8859-1"?>
<b:definitions xmlns:b="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><b:process id="p" name="Caf`),
    0xe9,
    ...new TextEncoder().encode(`"/></b:definitions>`),
  ]);
  assert.equal(readBpmn(latin1).definitions?.processes[0].name, "Café");

  const text =
    `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><process id="p" name="Ünïcode"/></definitions>`;
  const utf16 = new Uint8Array(2 + text.length * 2);
  utf16.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) utf16[2 + 2 * i] = text.charCodeAt(i);
  assert.equal(readBpmn(utf16).definitions?.processes[0].name, "Ünïcode");
});

Deno.test("the model carries events, boundaries, loops, data and collaborations", () => {
  const result = readBpmn(
    `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <bpmn:message id="M" name="order"/>
  <bpmn:timerEventDefinition id="everyHour"><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>
  <bpmn:collaboration id="c">
    <bpmn:participant id="pool" processRef="p"/>
    <bpmn:participant id="other"/>
    <bpmn:messageFlow id="mf" sourceRef="other" targetRef="recv" messageRef="M"/>
  </bpmn:collaboration>
  <bpmn:process id="p">
    <bpmn:laneSet><bpmn:lane id="L"><bpmn:flowNodeRef>recv</bpmn:flowNodeRef></bpmn:lane></bpmn:laneSet>
    <bpmn:dataObject id="DO" name="order"/>
    <bpmn:startEvent id="tick"><bpmn:eventDefinitionRef>everyHour</bpmn:eventDefinitionRef></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="tick" targetRef="recv"/>
    <bpmn:receiveTask id="recv" messageRef="M">
      <bpmn:multiInstanceLoopCharacteristics isSequential="true">
        <bpmn:loopCardinality>3</bpmn:loopCardinality>
        <bpmn:completionCondition>done</bpmn:completionCondition>
      </bpmn:multiInstanceLoopCharacteristics>
    </bpmn:receiveTask>
    <bpmn:boundaryEvent id="late" attachedToRef="recv" cancelActivity="false">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="recv" targetRef="sub"/>
    <bpmn:adHocSubProcess id="sub" ordering="Sequential">
      <bpmn:task id="inside"/>
      <bpmn:completionCondition>true</bpmn:completionCondition>
    </bpmn:adHocSubProcess>
  </bpmn:process>
</bpmn:definitions>`,
  );
  assert.deepEqual(result.diagnostics, []);
  const defs = result.definitions!;
  assert.deepEqual(defs.collaborations[0].participants.map((p) => p.processRef), ["p", undefined]);
  assert.equal(defs.collaborations[0].messageFlows[0].messageRef, "M");
  const p = defs.processes[0];
  assert.deepEqual(p.content.lanes[0].flowNodeRefs.map((r) => r.ref), ["recv"]);
  const [tick, recv, late, sub] = p.content.nodes as [
    EventNode,
    TaskNode,
    EventNode,
    SubProcessNode,
  ];
  const timer = tick.definitions[0];
  assert.equal(timer.type === "timer" && timer.expression?.text, "R/PT1H");
  assert.equal(timer.line, 12);
  assert.deepEqual(recv.boundaries, ["late"]);
  assert.equal(late.cancelActivity, false);
  assert.equal(recv.loop?.type === "multiInstance" && recv.loop.isSequential, true);
  assert.equal(recv.loop?.type === "multiInstance" && recv.loop.completionCondition?.text, "done");
  assert.equal(sub.ordering, "Sequential");
  assert.equal(sub.completionCondition?.text, "true");
  assert.deepEqual(sub.content.nodes.map((n) => n.id), ["inside"]);
  assert.equal(defs.ids.get("inside")?.container, "sub");
  assert.equal(defs.ids.get("DO")?.kind, "dataObject");
});
