import assert from "node:assert/strict";
import { validate, validateAll, validateZeebe } from "@bpmn-io/element-templates-validator";
import { BpmnModdle } from "bpmn-moddle";
import "../../io/codecs/mod.ts";
import { implementationOf, loadBpmn } from "../../engine/bpmn/mod.ts";
import { elementTemplates, TEMPLATE_SCHEMA } from "./element_templates.ts";

const ZEEBE_SCHEMA =
  "https://unpkg.com/@camunda/zeebe-element-templates-json-schema/resources/schema.json";
const descriptor = JSON.parse(
  await Deno.readTextFile(new URL("../../xsd/q.json", import.meta.url)),
);

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

// Why q:source, q:alias, q:retry, q:timeout and q:store have no template (docs/authoring.md).
Deno.test("no template binding can write a q: extension element", async () => {
  // Binding types are a closed list in both template schemas: none names a custom element.
  const binding = { type: "q:retry", name: "maxAttempts" };
  const property = { type: "String", value: "3", binding };
  const base = { id: "x", name: "x", appliesTo: ["bpmn:Task"], properties: [property] };
  for (const [check, $schema] of [[validate, TEMPLATE_SCHEMA], [validateZeebe, ZEEBE_SCHEMA]]) {
    const refused = (check as typeof validate)({ ...base, $schema });
    assert.equal(refused.valid, false);
    assert.match(JSON.stringify(refused.errors), /invalid property\.binding type \\"q:retry\\"/);
    // The same template with the `property` binding passes: the binding type is what is refused.
    const open = {
      ...base,
      $schema,
      properties: [{ ...property, binding: { type: "property", name: "q:retry" } }],
    };
    assert.equal((check as typeof validate)(open).valid, true, JSON.stringify(open));
  }

  // The one open binding, `property`, sets a value on the element itself, as the modeler does
  // with businessObject.set(name, value): with the descriptor loaded it becomes an attribute.
  const moddle = new BpmnModdle({ q: descriptor });
  const applyProperty = async (name: string) => {
    const { rootElement } = await moddle.fromXML(applied(templates[0], {
      implementation: "registered:score",
    }));
    const task = rootElement.rootElements[0].flowElements.find((e: { id: string }) =>
      e.id === "Task"
    );
    task.set(name, "3");
    return (await moddle.toXML(rootElement)).xml;
  };
  const xml = await applyProperty("q:retry");
  assert.match(xml, /<bpmn:serviceTask [^>]*q:retry="3"/);
  assert.doesNotMatch(xml, /<q:retry/);
  assert.deepEqual(
    (await moddle.fromXML(xml)).warnings.map((w: { message: string }) => w.message),
    ["unknown attribute <q:retry>"],
  );
  // The engine reads q:retry as an element only: the attribute compiles to no retry policy,
  // where the element it stands for does.
  const { loaded } = await taskOf(xml);
  assert.doesNotMatch(JSON.stringify(loaded.plan), /"retry"/);
  const element = xml.replace(
    / q:retry="3"([^>]*)\/>/,
    '$1><bpmn:extensionElements><q:retry maxAttempts="3"/></bpmn:extensionElements></bpmn:serviceTask>',
  );
  assert.match(
    JSON.stringify((await taskOf(element)).loaded.plan),
    /"retry":\{[^}]*"maxAttempts":3/,
  );
  // Nor can a `property` binding fill extensionElements: a string is not an element.
  await assert.rejects(() => applyProperty("extensionElements"));
});
