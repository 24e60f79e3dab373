import assert from "node:assert/strict";
import { errorMessage } from "./errors.ts";

Deno.test("errorMessage reads an Error's message and stringifies anything else", () => {
  assert.equal(errorMessage(new TypeError("bad input")), "bad input");
  assert.equal(errorMessage("plain text"), "plain text");
  assert.equal(errorMessage(42), "42");
  assert.equal(errorMessage(undefined), "undefined");
});
