import assert from "node:assert/strict";
import { callFunction, formatFeel } from "../semantics.ts";
import { at, show, showNamed, testEnv } from "./_testing.ts";
import { builtins } from "./mod.ts";

Deno.test("is() tells zones, offsets and local values apart", () => {
  assert.equal(show("is", at("23:00:50Z"), at("23:00:50+00:00")), "true");
  assert.equal(show("is", at("23:00:50"), at("23:00:50Z")), "false");
  assert.equal(show("is", at("23:00:50@Australia/Melbourne"), at("23:00:50+10:00")), "false");
  assert.equal(show("is", at("23:00:50@Etc/GMT"), at("23:00:50Z")), "false");
  assert.equal(
    show("is", at("2021-04-02T23:00:00@Australia/Melbourne"), at("2021-04-02T23:00:00+11:00")),
    "false",
  );
  assert.equal(show("is", at("2012-12-25"), at("2012-12-25T00:00:00Z")), "false");
  assert.equal(show("is", at("P1D"), at("PT24H")), "true");
  assert.equal(show("is", at("P0Y"), at("P0D")), "false");
  assert.equal(show("is", 1, 1), "true");
  assert.equal(show("is", "1", 1), "false");
  assert.equal(showNamed("is", { value1: at("2021-02-13") }), "false");
  assert.equal(showNamed("is", { value1: 1, value2: 1, value3: 1 }), "null");
});

Deno.test("day of year, day of week, month of year, ISO week of year", () => {
  assert.equal(show("day of year", at("2019-09-17")), "260");
  assert.equal(show("day of year", at("2020-12-31T10:10:10")), "366");
  assert.equal(show("day of week", at("2019-09-17")), '"Tuesday"');
  assert.equal(show("day of week", at("-0001-01-01")), '"Friday"');
  assert.equal(show("month of year", at("2019-09-17T10:10:10")), '"September"');
  assert.equal(show("week of year", at("2019-09-17")), "38");
  assert.equal(show("week of year", at("2003-12-29")), "1");
  assert.equal(show("week of year", at("2005-01-01")), "53");
  assert.equal(show("week of year", at("2005-01-09")), "1");
  assert.equal(showNamed("day of year", { date: at("2019-09-17") }), "260");
  assert.equal(show("day of week", "foo"), "null");
  assert.equal(show("month of year", null), "null");
});

Deno.test("now() and today() read the supplied clock and zone", () => {
  const now = Date.UTC(2021, 0, 1, 22, 30, 0);
  const call = (name: string, zone?: string) =>
    formatFeel(callFunction(builtins.get(name)!, { positional: [] }, testEnv(now, zone)));
  assert.equal(call("now"), 'date and time("2021-01-01T22:30:00Z")');
  assert.equal(
    call("now", "Australia/Melbourne"),
    'date and time("2021-01-02T09:30:00@Australia/Melbourne")',
  );
  assert.equal(call("today", "Australia/Melbourne"), 'date("2021-01-02")');
  assert.equal(call("today"), 'date("2021-01-01")');
  const env = testEnv();
  assert.equal(callFunction(builtins.get("now")!, { positional: [] }, env), null);
  assert.match(env.warnings[0], /no clock/);
  assert.equal(show("now", 123), "null");
});
