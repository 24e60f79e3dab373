import assert from "node:assert/strict";
import { NodeSet } from "./node_set.ts";

Deno.test("a node set answers membership, size and ascending iteration across words", () => {
  const words = NodeSet.words(70);
  assert.equal(words.length, 3);
  for (const i of [0, 5, 31, 32, 64, 69]) words[i >>> 5] |= 1 << (i & 31);
  const set = new NodeSet(words);
  assert.equal(set.size, 6);
  assert.deepEqual([...set], [0, 5, 31, 32, 64, 69]);
  assert.ok(set.has(31) && set.has(69) && !set.has(1) && !set.has(63));
  assert.equal(set.has(500), false, "indexes past the end are not members");
  assert.equal(new NodeSet(NodeSet.words(0)).size, 0);
});
