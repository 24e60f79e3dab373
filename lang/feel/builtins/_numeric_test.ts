import assert from "node:assert/strict";
import { at, show, showNamed } from "./_testing.ts";
import { FeelDecimal } from "../values.ts";

Deno.test("decimal rounds half to even at a scale", () => {
  assert.equal(show("decimal", new FeelDecimal(1).div(3), 2), "0.33");
  assert.equal(show("decimal", new FeelDecimal(1).div(3), 2.5), "0.33");
  assert.equal(show("decimal", 1.5, 0), "2");
  assert.equal(show("decimal", 2.5, 0), "2");
  assert.equal(show("decimal", 0.515, 2), "0.52");
  assert.equal(show("decimal", 1250, -2), "1200");
  assert.equal(showNamed("decimal", { n: 2.145, scale: 2 }), "2.14");
  assert.equal(show("decimal", 1.5, 6177), "null");
});

Deno.test("floor and ceiling with an optional scale", () => {
  assert.equal(show("floor", 1.5), "1");
  assert.equal(show("floor", -1.5), "-2");
  assert.equal(show("floor", -1.56, 1), "-1.6");
  assert.equal(show("ceiling", 1.5), "2");
  assert.equal(show("ceiling", -1.56, 1), "-1.5");
  assert.equal(show("floor", 1.56, null), "null");
  assert.equal(showNamed("floor", { n: 1.5, scal: 1 }), "null");
  assert.equal(show("floor", "1.5"), "null");
});

Deno.test("round up, down, half up and half down", () => {
  assert.equal(show("round up", 5.5, 0), "6");
  assert.equal(show("round up", -5.5, 0), "-6");
  assert.equal(show("round up", 1.121, 2), "1.13");
  assert.equal(show("round down", -1.126, 2), "-1.12");
  assert.equal(show("round half up", -1.126, 2), "-1.13");
  assert.equal(show("round half up", 1.125, 2), "1.13");
  assert.equal(show("round half down", 5.5, 0), "5");
  assert.equal(show("round half down", -5.5, 0), "-5");
  assert.equal(show("round up", 1234), "null");
  assert.equal(show("round down", 5.5, 1.1), "null");
  assert.equal(show("round up", 5.5, -6111), "5.5");
  assert.equal(show("round up", 5.5, -6112), "null");
  assert.equal(show("round up", 5.5, 6176), "5.5");
  assert.equal(show("round up", 5.5, 6177), "null");
  assert.equal(show("round half up", 1250, -2), "1300");
});

Deno.test("abs of numbers and durations", () => {
  assert.equal(show("abs", -1), "1");
  assert.equal(show("abs", at("-P1D")), 'duration("P1D")');
  assert.equal(show("abs", at("-P1Y")), 'duration("P1Y")');
  assert.equal(show("abs", at("PT5H")), 'duration("PT5H")');
  assert.equal(showNamed("abs", { n: -1 }), "1");
  assert.equal(showNamed("abs", { number: -1 }), "null");
  assert.equal(show("abs", at("2018-12-06")), "null");
});

Deno.test("modulo takes the sign of the divisor", () => {
  assert.equal(show("modulo", 12, 5), "2");
  assert.equal(show("modulo", -12, 5), "3");
  assert.equal(show("modulo", 12, -5), "-3");
  assert.equal(show("modulo", -12, -5), "-2");
  assert.equal(show("modulo", 10.1, 4.5), "1.1");
  assert.equal(show("modulo", -10.1, 4.5), "3.4");
  assert.equal(show("modulo", 10, 0), "null");
  assert.equal(showNamed("modulo", { dividend: 10, divisor: 4 }), "2");
});

Deno.test("sqrt, log, exp, odd, even", () => {
  assert.equal(show("sqrt", 16), "4");
  assert.equal(show("sqrt", 2), "1.414213562373095048801688724209698");
  assert.equal(show("sqrt", -1), "null");
  assert.equal(show("log", 10), "2.302585092994045684017991454684364");
  assert.equal(show("log", 0), "null");
  assert.equal(show("exp", 5), "148.4131591025766034211155800405523");
  assert.equal(show("exp", 100000), "null");
  assert.equal(show("odd", 5), "true");
  assert.equal(show("odd", -2), "false");
  assert.equal(show("even", 0), "true");
  assert.equal(show("even", 1.5), "null");
  assert.equal(showNamed("even", { number: 4 }), "true");
  assert.equal(showNamed("even", { n: 4 }), "null");
});
