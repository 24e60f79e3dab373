/**
 * The bpmn.io moddle descriptor of the q: vocabulary (`xsd/q.json`): it
 * describes exactly what `xsd/q.xsd` declares, and with it bpmn-moddle —
 * the model behind bpmn-js and Camunda Modeler — reads and writes every
 * BPMN file of the examples and test fixtures without changing what the
 * engine compiles from it.
 */
import assert from "node:assert/strict";
import { BpmnModdle } from "bpmn-moddle";
import { loadBpmn } from "../../engine/bpmn/mod.ts";
import { compileXsdModel, type XsdElement } from "../../io/codecs/_xsd_model.ts";

const root = new URL("../../", import.meta.url);
const descriptor = JSON.parse(await Deno.readTextFile(new URL("xsd/q.json", root)));
const xsdText = await Deno.readTextFile(new URL("xsd/q.xsd", root));

interface Property {
  name: string;
  type: string;
  isAttr?: boolean;
  isMany?: boolean;
  isBody?: boolean;
}
interface Type {
  name: string;
  superClass?: string[];
  extends?: string[];
  isAbstract?: boolean;
  properties: Property[];
}
const types = new Map<string, Type>(descriptor.types.map((t: Type) => [t.name, t]));
const typeOf = (element: string) => element[0].toUpperCase() + element.slice(1);

/** Whether the type `name` is `ancestor` or derives from it. */
function derives(name: string, ancestor: string): boolean {
  if (name === ancestor) return true;
  return (types.get(name)?.superClass ?? []).some((s) => derives(s, ancestor));
}

Deno.test("xsd/q.json declares every q: element, attribute and child of xsd/q.xsd, and nothing else", () => {
  assert.equal(descriptor.uri, "urn:sutra:q:1.0");
  assert.equal(descriptor.prefix, "q");
  assert.deepEqual(descriptor.xml, { tagAlias: "lowerCase" });
  const compiled = compileXsdModel(new Map([["q.xsd", xsdText]]));
  assert.ok(compiled.model, JSON.stringify(compiled.problems));
  const described = new Set<string>();
  const check = (element: XsdElement) => {
    const name = typeOf(element.name);
    if (described.has(name)) return;
    described.add(name);
    const type = types.get(name);
    assert.ok(type, `q:${element.name} has no moddle type ${name}`);
    assert.ok(derives(name, "Element"), `${name} is not an extension element`);
    const attrs = type.properties.filter((p) => p.isAttr);
    const children = type.properties.filter((p) => !p.isAttr && !p.isBody);
    if (element.type.kind === "simple") {
      assert.deepEqual(type.properties, [{ name: "body", isBody: true, type: "String" }]);
      return;
    }
    const xsdType = element.type;
    // Every attribute is text: a modeler writes back exactly what it read.
    assert.deepEqual(
      attrs.map((p) => [p.name, p.type]),
      xsdType.attributes.map((a) => [a.name, "String"]),
      `attributes of q:${element.name}`,
    );
    for (const particle of xsdType.particles) {
      const child = particle.element;
      const own = children.find((p) => p.name === child.name);
      // A choice of several elements is one ordered list of a common abstract type.
      const holder = own ?? children.find((p) => derives(typeOf(child.name), p.type));
      assert.ok(holder, `q:${element.name} has no property for child q:${child.name}`);
      assert.ok(derives(typeOf(child.name), holder.type));
      assert.equal(holder.isMany === true, particle.maxOccurs > 1 || holder !== own, child.name);
      check(child);
    }
    assert.equal(
      children.length,
      new Set(
        xsdType.particles.map((p) =>
          children.find((c) => c.name === p.element.name || derives(typeOf(p.element.name), c.type))
            ?.name
        ),
      ).size,
      `q:${element.name} has a property for no child of the schema`,
    );
  };
  for (const element of compiled.model.globals.values()) check(element);
  // The one global attribute sits on a BPMN element.
  const globalAttributes = [...xsdText.matchAll(/^ {2}<xs:attribute name="([^"]+)"/gm)].map((m) =>
    m[1]
  );
  assert.deepEqual(globalAttributes, ["resultVariable"]);
  assert.deepEqual(types.get("ScriptTask"), {
    name: "ScriptTask",
    extends: ["bpmn:ScriptTask"],
    properties: [{ name: "resultVariable", isAttr: true, type: "String" }],
  });
  const extra = [...types.values()].filter((t) =>
    !described.has(t.name) && !t.isAbstract && !t.extends
  );
  assert.deepEqual(extra.map((t) => t.name), []);
});

async function* bpmnFiles(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* bpmnFiles(new URL(`${e.name}/`, dir));
    else if (e.name.endsWith(".bpmn")) yield new URL(e.name, dir);
  }
}

/** A plan without source positions, which a re-serialised file moves. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value instanceof Map) {
    return new Map([...value].map(([k, v]) => [k, withoutPositions(v)]));
  }
  if (value instanceof Set || value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !["line", "column", "rawStart", "rawEnd"].includes(k))
      .map(([k, v]) => [k, withoutPositions(v)]),
  );
}

Deno.test("every example and fixture BPMN round-trips through bpmn-moddle to the same plan", async () => {
  // With the descriptor (a bpmn.io modeler given xsd/q.json), and without it (a modeler that keeps
  // q: elements as unknown extension elements, as Camunda Modeler does).
  const moddles = [new BpmnModdle({ q: descriptor }), new BpmnModdle()];
  const encoder = new TextEncoder();
  let compared = 0;
  for (const dir of ["examples/", "tests/fixtures/"]) {
    for await (const file of bpmnFiles(new URL(dir, root))) {
      const uri = file.pathname;
      const text = await Deno.readTextFile(file);
      const before = await loadBpmn(encoder.encode(text), { uri });
      // Fixtures that are invalid on purpose have no plan to compare.
      if (!before.plan) continue;
      for (const moddle of moddles) {
        const { rootElement, warnings } = await moddle.fromXML(text);
        assert.deepEqual(warnings.map((w: { message: string }) => w.message), [], uri);
        const { xml } = await moddle.toXML(rootElement, { format: true });
        const after = await loadBpmn(encoder.encode(xml), { uri });
        assert.ok(after.plan, `${uri}: ${after.diagnostics.map((d) => d.message).join("; ")}`);
        assert.deepEqual(withoutPositions(after.plan), withoutPositions(before.plan), uri);
      }
      compared++;
    }
  }
  assert.ok(compared >= 50, `only ${compared} files compared`);
});

Deno.test("bpmn-moddle reads q: elements as typed objects a modeler can edit", async () => {
  const moddle = new BpmnModdle({ q: descriptor });
  const text = await Deno.readTextFile(new URL("tests/fixtures/bpmn/transfer.bpmn", root));
  const { rootElement } = await moddle.fromXML(text);
  // deno-lint-ignore no-explicit-any
  const process: any = rootElement.rootElements.find((e: { $type: string }) =>
    e.$type === "bpmn:Process"
  );
  const types = process.extensionElements.values.map((v: { $type: string }) => v.$type);
  assert.ok(types.includes("q:Process") && types.includes("q:Variables"), types.join());
  // deno-lint-ignore no-explicit-any
  const start = process.flowElements.find((e: any) => e.$type === "bpmn:StartEvent");
  // deno-lint-ignore no-explicit-any
  const source = start.extensionElements.values.find((v: any) => v.$type === "q:Source");
  assert.equal(source.validators.items[0].$type, "q:SimpleValidator");
  assert.equal(source.validators.items[0].path, "payload.amount.currency");
  assert.equal(source.redactors.redactor[0].ref, "pci");
  source.channel = "renamed";
  const { xml } = await moddle.toXML(rootElement);
  assert.match(xml, /<q:source [^>]*channel="renamed"/);
});
