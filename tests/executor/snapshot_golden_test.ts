/**
 * The snapshot golden corpus: each scenario's resting state must encode to
 * exactly the bytes on file, and each file must decode and re-encode to
 * itself, byte for byte.
 */
import assert from "node:assert/strict";
import { decodeSnapshot, encodeSnapshot } from "../../engine/executor/mod.ts";
import { GOLDEN } from "./golden_scenarios.ts";

const DIR = new URL("../fixtures/executor/snapshots/", import.meta.url);

for (const scenario of GOLDEN) {
  Deno.test(`golden snapshot ${scenario.name}: encoding is stable and decode(encode(x)) = x`, async () => {
    const golden = await Deno.readFile(new URL(`${scenario.name}.snap`, DIR));
    const { plan, state } = await scenario.run();
    assert.equal(
      new TextDecoder().decode(encodeSnapshot(plan, state)),
      new TextDecoder().decode(golden),
    );
    const decoded = decodeSnapshot(plan, golden);
    assert.equal(decoded.diagnostics, undefined);
    assert.deepEqual(encodeSnapshot(plan, decoded.state!), golden);
  });
}
