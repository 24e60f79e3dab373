import assert from "node:assert/strict";
import { formatFeel } from "../../feel/mod.ts";
import { loadModel } from "../models.ts";
import { decision, dmn, inputData, table, value } from "../_testing.ts";
import { aggregate } from "./collect_aggregation.ts";

const collect = (aggregation: string, defaultOutput?: string) =>
  dmn(
    inputData("n", "number") +
      decision(
        "d",
        table({
          hitPolicy: "COLLECT",
          aggregation,
          inputs: ["n"],
          outputs: [{ default: defaultOutput }],
          rules: [[["> 0"], ["10"]], [["> 1"], ["20"]], [["> 2"], ["5"]]],
        }),
        { inputs: ["n"] },
      ),
  );

Deno.test("COLLECT SUM, COUNT, MIN and MAX aggregate the matching outputs", () => {
  assert.equal(value(collect("SUM"), "d", { n: 3 }), "35");
  assert.equal(value(collect("COUNT"), "d", { n: 3 }), "3");
  assert.equal(value(collect("MIN"), "d", { n: 3 }), "5");
  assert.equal(value(collect("MAX"), "d", { n: 3 }), "20");
  assert.equal(value(collect("SUM"), "d", { n: 1 }), "10");
});

Deno.test("with no match COUNT is 0 and the others null, unless a default output is given", () => {
  assert.equal(value(collect("COUNT"), "d", { n: 0 }), "0");
  assert.equal(value(collect("SUM"), "d", { n: 0 }), "null");
  assert.equal(value(collect("MAX"), "d", { n: 0 }), "null");
  assert.equal(value(collect("MAX", "0"), "d", { n: 0 }), "0");
});

Deno.test("aggregating non-numbers is null with a warning", () => {
  const env = {
    warnings: [] as string[],
    warn(m: string) {
      this.warnings.push(m);
    },
  };
  assert.equal(aggregate("SUM", ["a", "b"], env), null);
  assert.ok(env.warnings.length > 0);
  assert.equal(formatFeel(aggregate("COUNT", ["a", "b"], env)), "2");
});

Deno.test("an aggregation on a table that is not COLLECT is reported at load", () => {
  const xml = dmn(
    inputData("n", "number") +
      decision(
        "d",
        table({ hitPolicy: "FIRST", aggregation: "SUM", inputs: ["n"], rules: [[["-"], ["1"]]] }),
        { inputs: ["n"] },
      ),
  );
  const codes = loadModel(xml).diagnostics.map((d) => [d.code, d.message]);
  assert.deepEqual(codes, [[
    "SUTRA.DMN.DECISION_TABLE",
    "aggregation SUM needs hit policy COLLECT, not FIRST",
  ]]);
});
