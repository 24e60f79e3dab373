/**
 * The DMN TCK as part of the suite: runs every test folder under
 * `../shared/tck` and holds the conformance floors (compliance level 2: every
 * result passes; compliance level 3: at least 99.5 %; no result crashes the
 * engine). Skipped, with a notice, where the corpus is not present.
 */
import assert from "node:assert/strict";
import { resultId, summarize } from "./tck/report.ts";
import { runTck } from "./tck/run.ts";

const root = new URL("../../shared/tck", import.meta.url).pathname;

function present(): boolean {
  try {
    return Deno.statSync(root).isDirectory;
  } catch {
    return false;
  }
}

const available = present();
if (!available) console.log(`DMN TCK not found at ${root}: the conformance test is skipped`);

Deno.test({
  name: "DMN TCK: level 2 passes completely, level 3 at least 99.5 %, nothing crashes",
  ignore: !available,
  fn: async () => {
    const results = await runTck(root);
    const s = summarize(results);
    const notPassing = (group: string) =>
      results.filter((r) => r.group === group && r.outcome !== "PASS").map(
        (r) => `${resultId(r)}: ${r.reason}`,
      );
    const l2 = s.groups["compliance-level-2"];
    const l3 = s.groups["compliance-level-3"];
    assert.ok(l2 !== undefined && l3 !== undefined, "both compliance groups are in the corpus");
    assert.equal(l2.total, 126);
    assert.deepEqual(notPassing("compliance-level-2"), []);
    assert.ok(
      l3.pass / l3.total >= 0.995,
      `level 3: ${l3.pass}/${l3.total}\n${notPassing("compliance-level-3").join("\n")}`,
    );
    assert.deepEqual(results.filter((r) => r.crashed === true).map(resultId), []);
  },
});
