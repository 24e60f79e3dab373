import assert from "node:assert/strict";
import { validate, validateAll } from "@bpmn-io/element-templates-validator";
import "../../io/codecs/mod.ts";
import { implementationOf, loadBpmn } from "../../engine/bpmn/mod.ts";
import { elementTemplates } from "./element_templates.ts";

interface Property {
  type: string;
  value?: string;
  binding: { type: string; name: string };
  constraints?: { pattern?: { value: string } };
}
interface Template {
  id: string;
  elementType: { value: string };
  properties: Property[];
}

const templates = elementTemplates("shop") as Template[];

Deno.test("the element templates are valid Camunda element templates", () => {
  const all = validateAll(templates);
  assert.deepEqual(all.results.flatMap((r: { errors?: unknown[] }) => r.errors ?? []), []);
  assert.equal(all.valid, true);
  assert.deepEqual(templates.map((t) => t.id), [
    "sutra.registered-task",
    "sutra.channel-call",
    "sutra.template-task",
    "sutra.decision",
    "sutra.feel-script",
  ]);
  // The validator does check: a template without its binding is refused.
  const broken = structuredClone(templates[0]);
  delete (broken.properties[0] as Partial<Property>).binding;
  assert.equal(validate(broken).valid, false);
});

const escape = (s: string) => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** A process whose one task is `template` applied with `values` (by binding name). */
function applied(template: Template, values: Record<string, string>): string {
  const element = template.elementType.value.replace("bpmn:", "");
  const tag = element[0].toLowerCase() + element.slice(1);
  const attributes = template.properties.map((p) =>
    ` ${p.binding.name}="${escape(values[p.binding.name] ?? p.value ?? "")}"`
  ).join("");
  const body = tag === "scriptTask" ? "<bpmn:script>1 + 1</bpmn:script>" : "";
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:test">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="Start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Task"/>
    <bpmn:${tag} id="Task"${attributes}>${body}</bpmn:${tag}>
    <bpmn:sequenceFlow id="f2" sourceRef="Task" targetRef="End"/>
    <bpmn:endEvent id="End"/>
  </bpmn:process>
</bpmn:definitions>`;
}

async function taskOf(xml: string) {
  const loaded = await loadBpmn(new TextEncoder().encode(xml), { uri: "applied.bpmn" });
  assert.ok(loaded.definitions, JSON.stringify(loaded.diagnostics));
  const task = loaded.definitions.processes[0].content.nodes.find((n) => n.id === "Task");
  return { task: task!, loaded };
}

/** Values the modeler lets through each template, with what the engine makes of them. */
const ACCEPTED: Record<string, [string, string][]> = {
  "sutra.registered-task": [["registered:score", "registered"]],
  "sutra.channel-call": [["channel:credit-check", "channel-call"]],
  "sutra.template-task": [["shop-accepted.xml.hbs", "template"], ["reply.xsl", "template"]],
  "sutra.decision": [["rules/pricing.dmn#price", "decision"], ["rules/fields.srl", "decision"]],
};
const REFUSED: Record<string, string[]> = {
  "sutra.registered-task": ["registered:", "score"],
  "sutra.channel-call": ["channel:", "channel:bad name"],
  "sutra.template-task": ["reply.txt"],
  "sutra.decision": ["rules/pricing.xlsx", "#price"],
};

Deno.test("a value a template's pattern accepts is the implementation the engine reads", async () => {
  for (const template of templates) {
    const field = template.properties.find((p) => p.binding.name === "implementation");
    if (!field) continue;
    const pattern = new RegExp(field.constraints!.pattern!.value);
    for (const [value, kind] of ACCEPTED[template.id]) {
      assert.ok(pattern.test(value), `${template.id} refuses ${value}`);
      const { task } = await taskOf(applied(template, { implementation: value }));
      assert.equal(implementationOf(task)?.kind, kind, `${template.id} ${value}`);
    }
    for (const value of REFUSED[template.id]) {
      assert.ok(!pattern.test(value), `${template.id} lets ${value} through`);
    }
  }
});

Deno.test("the FEEL script template writes a FEEL script task with its q:resultVariable", async () => {
  const script = templates.find((t) => t.id === "sutra.feel-script")!;
  const { task, loaded } = await taskOf(applied(script, { "q:resultVariable": "total" }));
  assert.equal(implementationOf(task)?.kind, "script");
  assert.equal(loaded.ok, true, JSON.stringify(loaded.diagnostics));
  assert.ok(loaded.plan);
  assert.match(JSON.stringify(loaded.plan), /"total"/);
});
