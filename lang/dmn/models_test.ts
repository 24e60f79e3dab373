import assert from "node:assert/strict";
import { typeName } from "../feel/mod.ts";
import { loadModel, loadModels } from "./models.ts";
import { decision, dmn, inputData, literal } from "./_testing.ts";

const lib = dmn(decision("x", literal("1")), "urn:lib", "lib");
const app = dmn(
  `<import name="lib" namespace="urn:lib" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/>` +
    inputData("n", "number") + decision("y", literal("n"), { inputs: ["n"], typeRef: "string" }),
  "urn:app",
  "app",
);

Deno.test("the main model is the one no other imports, or the one named", () => {
  const sources = [{ uri: "lib.dmn", text: lib }, { uri: "app.dmn", text: app }];
  assert.equal(loadModels(sources).models!.main.name, "app");
  assert.equal(loadModels(sources, { main: "lib.dmn" }).models!.main.name, "lib");
  assert.equal(loadModels(sources, { main: "urn:lib" }).models!.main.name, "lib");
  const unknown = loadModels(sources, { main: "nope" });
  assert.equal(unknown.models!.main.name, "app");
  assert.match(unknown.diagnostics[0].message, /the main model 'nope' is not among/);
});

Deno.test("declared types of input data and decisions are available by name", () => {
  const models = loadModels([{ uri: "lib.dmn", text: lib }, { uri: "app.dmn", text: app }]).models!;
  assert.equal(typeName(models.declaredType("n")!), "number");
  assert.equal(typeName(models.declaredType("y")!), "string");
  assert.equal(models.declaredType("x"), undefined);
  assert.equal(models.declaredType("x", "urn:lib"), undefined);
  assert.deepEqual(models.models.map((m) => m.name), ["lib", "app"]);
});

Deno.test("two models with one namespace: the second is reported and left out", () => {
  const r = loadModels([{ uri: "a.dmn", text: lib }, { uri: "b.dmn", text: lib }]);
  assert.deepEqual(r.diagnostics.map((d) => [d.code, d.source?.uri]), [[
    "SUTRA.DMN.DUPLICATE",
    "b.dmn",
  ]]);
  assert.equal(r.models!.models.length, 1);
});

Deno.test("nothing loadable gives diagnostics and no models", () => {
  assert.equal(loadModels([]).models, undefined);
  assert.deepEqual(loadModel("<x/>").diagnostics.map((d) => d.code), ["SUTRA.DMN.NOT_DMN"]);
});
