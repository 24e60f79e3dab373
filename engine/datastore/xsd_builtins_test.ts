import assert from "node:assert/strict";
import { isXsdNumeric, XSD_INTEGER_TYPES } from "./xsd_builtins.ts";

Deno.test("the integer family holds xs:integer and its derived built-ins only", () => {
  assert.ok(XSD_INTEGER_TYPES.has("integer"));
  assert.ok(XSD_INTEGER_TYPES.has("unsignedByte"));
  assert.ok(!XSD_INTEGER_TYPES.has("decimal"));
  assert.ok(!XSD_INTEGER_TYPES.has("string"));
});

Deno.test("decimal, the integer family, float and double are numeric; nothing else is", () => {
  for (const t of ["decimal", "integer", "nonPositiveInteger", "float", "double"]) {
    assert.ok(isXsdNumeric(t), t);
  }
  for (const t of ["string", "boolean", "date", "dateTime", "base64Binary"]) {
    assert.ok(!isXsdNumeric(t), t);
  }
});
