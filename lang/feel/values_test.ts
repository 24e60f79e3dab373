import assert from "node:assert/strict";
import { FeelDecimal, feelNumber, yearsMonthsDuration } from "./values.ts";

Deno.test("numbers follow decimal128: 34 digits, half-even rounding", () => {
  assert.equal(
    feelNumber("1234567890123456789012345678901234567")!.toString(),
    "1.234567890123456789012345678901235e+36",
  );
  assert.equal(
    feelNumber("0.12345678901234567890123456789012345")!.toString(),
    "0.1234567890123456789012345678901234",
  );
  assert.equal(
    feelNumber("0.12345678901234567890123456789012355")!.toString(),
    "0.1234567890123456789012345678901236",
  );
  assert.equal(new FeelDecimal(1).div(3).toString(), "0.3333333333333333333333333333333333");
  assert.equal(new FeelDecimal("1e6144").times(10).isFinite(), false);
  assert.equal(feelNumber("1e6145"), null);
  assert.equal(feelNumber("1.23e4")!.toString(), "12300");
  assert.equal(feelNumber(".5")!.toString(), "0.5");
  assert.equal(feelNumber("-0")!.toString(), "0");
  for (const bad of ["", "abc", "0x10", "Infinity", "NaN", "+1", "1e"]) {
    assert.equal(feelNumber(bad), null, bad);
  }
  assert.equal(feelNumber(Number.NaN), null);
});

Deno.test("a zero years-and-months duration has no sign", () => {
  assert.ok(Object.is(yearsMonthsDuration(-0).months, 0));
});
