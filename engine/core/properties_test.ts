import assert from "node:assert/strict";
import { parseProperties } from "./properties.ts";

Deno.test("properties: separators, comments, continuations and escapes", () => {
  const { entries, errors } = parseProperties(
    [
      "# comment",
      "! also a comment",
      "a=1",
      "b : two words ",
      "c value",
      "  d=multi \\",
      "    line",
      "e=tab\\there \\u00e9",
      "f",
      "g=x=y",
      "",
    ].join("\n"),
  );
  assert.deepEqual(errors, []);
  const get = (k: string) => entries.get(k)?.value;
  assert.equal(get("a"), "1");
  assert.equal(get("b"), "two words ");
  assert.equal(get("c"), "value");
  assert.equal(get("d"), "multi line");
  assert.equal(entries.get("d")?.line, 6);
  assert.equal(get("e"), "tab\there é");
  assert.equal(get("f"), "");
  assert.equal(get("g"), "x=y");
});

Deno.test("properties: malformed escapes are reported with their line", () => {
  const { errors } = parseProperties("ok=1\nbad=\\u12\n");
  assert.deepEqual(errors.map((e) => e.line), [2]);
});
