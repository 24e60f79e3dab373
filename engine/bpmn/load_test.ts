import assert from "node:assert/strict";
import { loadBpmn } from "./load.ts";
import type { ShapeProvider } from "./shape.ts";

const FIXTURES = new URL("../../tests/fixtures/bpmn/", import.meta.url);

function minimal(body: string, processAttributes = 'isExecutable="true"'): string {
  return `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d">
  <bpmn:process id="p" ${processAttributes}>
${body}
  </bpmn:process>
</bpmn:definitions>`;
}

Deno.test("a file with five distinct violations reports all five, each on its line", async () => {
  const result = await loadBpmn(await Deno.readFile(new URL("five_violations.bpmn", FIXTURES)), {
    uri: "five_violations.bpmn",
  });
  assert.equal(result.ok, false);
  assert.equal(result.plan, undefined);
  assert.deepEqual(
    result.diagnostics.map((d) => [d.code, d.source?.line]),
    [
      ["SUTRA.CONFIG.BPMN.SOURCE_MISSING", 4],
      ["SUTRA.CONFIG.BPMN.DEFAULT_NOT_OUTGOING", 8],
      ["SUTRA.CONFIG.BPMN.CONDITION_MISSING", 12],
      ["SUTRA.CONFIG.BPMN.Q_SCHEMA", 15],
      ["SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED", 20],
    ],
  );
  assert.ok(result.diagnostics.every((d) => d.source?.uri === "five_violations.bpmn"));
});

Deno.test("a FEEL error points at its line and column inside a multi-line expression", async () => {
  const text = minimal(`    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e">
      <bpmn:conditionExpression><![CDATA[
        a < 1 and
          b = "x")]]></bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:endEvent id="e"/>`);
  const result = await loadBpmn(text);
  const [d] = result.diagnostics;
  assert.equal(d.code, "SUTRA.CONFIG.BPMN.FEEL_SYNTAX");
  assert.deepEqual([d.source?.line, d.source?.column], [8, 18]);
  assert.equal(text.split("\n")[7][17], ")");
});

Deno.test("FEEL paths are checked against the payload shape the codec supplies", async () => {
  const shapes: ShapeProvider = {
    payload: (channel, type) =>
      channel === "orders" && type === "Order"
        ? {
          kind: "record",
          fields: {
            id: { kind: "scalar", type: "string" },
            lines: {
              kind: "list",
              item: { kind: "record", fields: { qty: { kind: "scalar", type: "number" } } },
            },
          },
        }
        : undefined,
  };
  const text = minimal(`    <bpmn:extensionElements>
      <q:variables><q:variable name="limit" type="number"/></q:variables>
    </bpmn:extensionElements>
    <bpmn:startEvent id="s">
      <bpmn:extensionElements>
        <q:source channel="orders" messageTypeValue="Order"/>
        <q:alias name="orderId" expression="payload.id"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="gw"/>
    <bpmn:exclusiveGateway id="gw" default="small"/>
    <bpmn:sequenceFlow id="big" sourceRef="gw" targetRef="e">
      <bpmn:conditionExpression>sum(payload.lines.qty) &gt; limit and payload.customer.vip</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="small" sourceRef="gw" targetRef="e"/>
    <bpmn:endEvent id="e"/>`);
  const result = await loadBpmn(text, { shapes });
  assert.deepEqual(result.diagnostics.map((d) => [d.code, d.source?.line, d.source?.column]), [
    ["SUTRA.CONFIG.BPMN.FEEL_PATH_INVALID", 16, 71],
  ]);
  assert.ok(text.split("\n")[15].slice(70).startsWith("payload.customer.vip"));
  assert.match(
    result.diagnostics[0].message,
    /'payload' has no field 'customer' \(it has id, lines\)/,
  );
});

Deno.test("payload paths are checked against a supplied shape even without declared variables", async () => {
  const text = minimal(`    <bpmn:startEvent id="s">
      <bpmn:extensionElements>
        <q:source channel="orders"/>
        <q:alias name="orderId" expression="payload.ident"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="e">
      <bpmn:conditionExpression>undeclared and payload.id != null</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:endEvent id="e"/>`);
  const result = await loadBpmn(text, {
    shapes: {
      payload: () => ({ kind: "record", fields: { id: { kind: "scalar", type: "string" } } }),
    },
  });
  assert.deepEqual(result.diagnostics.map((d) => [d.code, d.source?.line, d.source?.column]), [
    ["SUTRA.CONFIG.BPMN.FEEL_PATH_INVALID", 7, 45],
  ]);
});

Deno.test("a non-executable process is read, noted, and left out of the plan", async () => {
  const text = minimal(
    `    <bpmn:startEvent id="s"><bpmn:messageEventDefinition/></bpmn:startEvent>
    <bpmn:sequenceFlow id="f" sourceRef="s" targetRef="gw"/>
    <bpmn:exclusiveGateway id="gw"/>
    <bpmn:sequenceFlow id="a" sourceRef="gw" targetRef="e"/>
    <bpmn:sequenceFlow id="b" sourceRef="gw" targetRef="e"/>
    <bpmn:endEvent id="e"/>`,
    'isExecutable="false"',
  );
  const result = await loadBpmn(text);
  assert.equal(result.ok, true);
  assert.deepEqual(result.diagnostics.map((d) => [d.code, d.severity, d.source?.line]), [
    ["SUTRA.CONFIG.BPMN.PROCESS_NOT_EXECUTABLE", "INFO", 3],
  ]);
  assert.equal(result.definitions?.processes.length, 1);
  assert.equal(result.plan?.processes.length, 0);
});

Deno.test("bad input of every kind comes back as diagnostics, never as a throw", async () => {
  for (const input of ["", "not xml", "<a>", new Uint8Array([0xff, 0xfe, 0x00]), "<x:y/>"]) {
    const result = await loadBpmn(input, { uri: "bad.bpmn" });
    assert.equal(result.ok, false);
    assert.ok(result.diagnostics.length > 0);
    for (const d of result.diagnostics) {
      assert.match(d.code, /^SUTRA\.CONFIG\.BPMN\./);
      assert.equal(d.source?.uri, "bad.bpmn");
      assert.ok((d.source?.line ?? 0) >= 1);
    }
  }
});

Deno.test("startQuantity or completionQuantity other than 1 is refused, naming the attribute", async () => {
  const result = await loadBpmn(
    new TextEncoder().encode(minimal(`    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:task id="t" startQuantity="2" completionQuantity="1"/>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="u"/>
    <bpmn:task id="u" completionQuantity="3"/>
    <bpmn:sequenceFlow id="f3" sourceRef="u" targetRef="e"/>
    <bpmn:endEvent id="e"/>`)),
    { uri: "quantities.bpmn" },
  );
  assert.equal(result.ok, false);
  const refused = result.diagnostics.filter((d) =>
    d.code === "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED"
  );
  assert.deepEqual(refused.map((d) => [d.source?.line, d.attributes?.attribute]), [
    [6, "startQuantity"],
    [8, "completionQuantity"],
  ]);
});
