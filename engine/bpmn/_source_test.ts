import assert from "node:assert/strict";
import { SourceText } from "./_source.ts";

Deno.test("offsets map to 1-based lines and columns", () => {
  const s = new SourceText("ab\ncd\n\nx");
  assert.deepEqual(s.locate(0), { line: 1, column: 1 });
  assert.deepEqual(s.locate(4), { line: 2, column: 2 });
  assert.deepEqual(s.locate(6), { line: 3, column: 1 });
  assert.deepEqual(s.locate(7), { line: 4, column: 1 });
});

Deno.test("decoded positions skip entities, CDATA markers, comments and CR LF pairs", () => {
  // Decoded: "a < b" + "\n" + "c]" → the 'c' is decoded index 6.
  const raw = "a &lt; b\r\n<!-- note --><![CDATA[c]]]>";
  const s = new SourceText(raw);
  assert.equal(raw[s.rawOffset(0, raw.length, 2)], "&");
  assert.equal(raw[s.rawOffset(0, raw.length, 4)], "b");
  assert.equal(raw[s.rawOffset(0, raw.length, 6)], "c");
  assert.equal(raw[s.rawOffset(0, raw.length, 7)], "]");
  assert.deepEqual(s.locateDecoded(0, raw.length, 6), { line: 2, column: 23 });
});
