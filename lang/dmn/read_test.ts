import assert from "node:assert/strict";
import { readDmn } from "./read.ts";
import { decision, dmn, literal, value } from "./_testing.ts";

const V11 = `<?xml version="1.0"?>
<d:definitions xmlns:d="http://www.omg.org/spec/DMN/20151101/dmn.xsd"
    xmlns:feel="http://www.omg.org/spec/FEEL/20140401" xmlns:xsd="http://www.w3.org/2001/XMLSchema"
    xmlns:tns="urn:old" namespace="urn:old" name="old" id="old">
  <d:itemDefinition name="tAmount"><d:typeRef>feel:number</d:typeRef></d:itemDefinition>
  <d:inputData id="i_a" name="a"><d:variable name="a" typeRef="tns:tAmount"/></d:inputData>
  <d:inputData id="i_b" name="b"><d:variable name="b" typeRef="xsd:string"/></d:inputData>
  <d:decision id="d" name="d"><d:variable name="d" typeRef="feel:number"/>
    <d:informationRequirement><d:requiredInput href="#i_a"/></d:informationRequirement>
    <d:literalExpression><d:text>a * 2</d:text></d:literalExpression>
  </d:decision>
</d:definitions>`;

Deno.test("every DMN version's namespace is read, with any prefix", () => {
  const versions: [string, string][] = [
    ["http://www.omg.org/spec/DMN/20151101/dmn.xsd", "1.1"],
    ["http://www.omg.org/spec/DMN/20180521/MODEL/", "1.2"],
    ["https://www.omg.org/spec/DMN/20191111/MODEL/", "1.3"],
    ["https://www.omg.org/spec/DMN/20211108/MODEL/", "1.4"],
    ["https://www.omg.org/spec/DMN/20230324/MODEL/", "1.5"],
  ];
  for (const [ns, version] of versions) {
    const r = readDmn(`<x:definitions xmlns:x="${ns}" namespace="urn:a" name="a"/>`);
    assert.equal(r.model?.version, version);
  }
});

Deno.test("DMN 1.1 QName typeRefs become FEEL names", () => {
  const r = readDmn(V11);
  assert.deepEqual(r.diagnostics, []);
  const [a, b] = r.model!.elements.filter((e) => e.kind === "inputData");
  assert.equal(a.variable.typeRef, "tAmount");
  assert.equal(b.variable.typeRef, "string");
  assert.equal(r.model!.itemDefinitions[0].typeRef, "number");
  assert.equal(value(V11, "d", { a: 21 }), "42");
});

Deno.test("malformed XML is one diagnostic with file, line and column", () => {
  const r = readDmn("<definitions>\n  <decision>\n</definitions>", { uri: "bad.dmn" });
  assert.equal(r.model, undefined);
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0].code, "SUTRA.DMN.XML");
  assert.deepEqual(
    [r.diagnostics[0].source?.uri, r.diagnostics[0].source?.line],
    ["bad.dmn", 3],
  );
});

Deno.test("a document that is not DMN is refused", () => {
  const r = readDmn('<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"/>');
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["SUTRA.DMN.NOT_DMN"]);
  assert.deepEqual(readDmn("").diagnostics.map((d) => d.code), ["SUTRA.DMN.XML"]);
});

Deno.test("every malformed element is reported, each with its line", () => {
  const xml = dmn(`<decision id="x"><variable name="x"/>${literal("1")}</decision>
<inputData id="i"/>
<decision id="y" name="y"><informationRequirement><requiredDecision/></informationRequirement></decision>
<decision id="z" name="z"><decisionTable hitPolicy="SOMETIMES"><output/></decisionTable></decision>`);
  const r = readDmn(xml, { uri: "m.dmn" });
  assert.deepEqual(r.diagnostics.map((d) => [d.source?.line, d.message]), [
    [3, "<decision> needs a 'name' attribute"],
    [4, "<inputData> needs a 'name' attribute"],
    [5, "<requiredDecision> needs an 'href' attribute"],
    [6, "unknown hit policy 'SOMETIMES'"],
  ]);
});

Deno.test("names are read with their whitespace normalised", () => {
  const xml = dmn(decision("d", literal("1")).replace('name="d"', 'name="  two   words "'));
  const r = readDmn(xml);
  assert.equal(r.model!.elements[0].name, "two words");
});
