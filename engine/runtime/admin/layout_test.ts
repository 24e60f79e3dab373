import assert from "node:assert/strict";
import { planOf } from "../../../tests/executor/harness.ts";
import { hasDiagram, layoutDiagram, withDiagram } from "./layout.ts";

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="urn:t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
    <bpmn:exclusiveGateway id="g" default="f3"/>
    <bpmn:sequenceFlow id="f2" sourceRef="g" targetRef="t"><bpmn:conditionExpression>again</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f3" sourceRef="g" targetRef="e"/>
    <bpmn:task id="t"/>
    <bpmn:boundaryEvent id="b" attachedToRef="t"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="t" targetRef="g"/>
    <bpmn:sequenceFlow id="f5" sourceRef="b" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>
`;

/** Element id → [x, y] of its shape. */
function shapes(di: string): Map<string, [number, number]> {
  return new Map(
    [...di.matchAll(/bpmnElement="([^"]+)"[^>]*><dc:Bounds x="([\d.]+)" y="([\d.]+)"/g)]
      .map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
  );
}

Deno.test("a process without a diagram gets one: columns by longest path, loops ignored", async () => {
  const plan = await planOf(XML);
  const di = layoutDiagram(plan.processById.get("p")!);
  const at = shapes(di);
  assert.deepEqual([...at.keys()].sort(), ["b", "e", "g", "s", "t"]);
  // s → g → t, and t's loop back to g does not push g right; e follows g.
  assert.ok(at.get("s")![0] < at.get("g")![0] && at.get("g")![0] < at.get("t")![0]);
  assert.ok(at.get("g")![0] < at.get("e")![0]);
  // The boundary sits on its task's lower edge.
  assert.equal(at.get("b")![1], at.get("t")![1] + 80 - 18);
  for (const flow of ["f1", "f2", "f3", "f4", "f5"]) {
    assert.match(
      di,
      new RegExp(`<bpmndi:BPMNEdge id="${flow}_di" bpmnElement="${flow}"><di:waypoint`),
    );
  }
  const served = withDiagram(XML, plan.processById.get("p")!);
  assert.ok(hasDiagram(served));
  assert.ok(served.trimEnd().endsWith("</bpmn:definitions>"));
  assert.equal(
    withDiagram(served, plan.processById.get("p")!),
    served,
    "a diagram is kept as it is",
  );
});
