import assert from "node:assert/strict";
import { AliasPredictions } from "./alias_predictions.ts";

const alias = (value: string, tenant = "t") => ({ tenant, name: "e2eId", value });
const effect = (value: string, unique = true) => ({
  name: "e2eId",
  value,
  unique,
  onConflict: "correlate" as const,
});

Deno.test("a committed unique alias predicts its instance until it is retired", () => {
  const p = new AliasPredictions();
  p.committed("t", "i-1", {
    aliasesRecorded: [effect("A"), effect("B", false)],
    aliasesRetired: [],
  });
  assert.equal(p.predict(alias("A")), "i-1");
  assert.equal(p.predict(alias("A", "other-tenant")), undefined);
  // A non-unique value may have an earlier holder, which correlation would name first.
  assert.equal(p.predict(alias("B")), undefined);
  p.committed("t", "i-1", { aliasesRecorded: [], aliasesRetired: [effect("A")] });
  assert.equal(p.predict(alias("A")), undefined);
});

Deno.test("retiring an alias does not forget another instance's later claim to it", () => {
  const p = new AliasPredictions();
  p.remember(alias("A"), "i-2");
  p.committed("t", "i-1", { aliasesRecorded: [], aliasesRetired: [effect("A")] });
  assert.equal(p.predict(alias("A")), "i-2");
  p.forget(alias("A"), "i-1");
  assert.equal(p.predict(alias("A")), "i-2");
  p.forget(alias("A"), "i-2");
  assert.equal(p.predict(alias("A")), undefined);
});

Deno.test("a step that records and ends at once leaves no prediction behind", () => {
  const p = new AliasPredictions();
  p.committed("t", "i-1", { aliasesRecorded: [effect("A")], aliasesRetired: [effect("A")] });
  assert.equal(p.predict(alias("A")), undefined);
});

Deno.test("past capacity the least recently remembered value goes first", () => {
  const p = new AliasPredictions(2);
  p.remember(alias("A"), "i-a");
  p.remember(alias("B"), "i-b");
  p.remember(alias("A"), "i-a2");
  p.remember(alias("C"), "i-c");
  assert.deepEqual(["A", "B", "C"].map((v) => p.predict(alias(v))), ["i-a2", undefined, "i-c"]);
});
