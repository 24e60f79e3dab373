import assert from "node:assert/strict";
import { at, callNamed, show, showNamed } from "./_testing.ts";

Deno.test("date() parses strings, extracts from date and time, builds from parts", () => {
  assert.equal(show("date", "2017-12-31"), 'date("2017-12-31")');
  assert.equal(show("date", "-2017-01-01"), 'date("-2017-01-01")');
  assert.equal(show("date", "999999999-12-31"), 'date("999999999-12-31")');
  assert.equal(show("date", at("2017-09-03T09:45:30@Europe/Paris")), 'date("2017-09-03")');
  assert.equal(show("date", 2017, 1, 1), 'date("2017-01-01")');
  assert.equal(show("date", -999999999, 12, 31), 'date("-999999999-12-31")');
  assert.equal(showNamed("date", { year: 2017, month: 8, day: 30 }), 'date("2017-08-30")');
  assert.equal(showNamed("date", { from: "2012-12-25" }), 'date("2012-12-25")');
});

Deno.test("date() refuses invalid input", () => {
  for (
    const bad of [
      "",
      "2012/12/25",
      "2012-12-25T",
      "998-12-31",
      "01211-12-31",
      "+2012-12-02",
      "9999999999-12-25",
      "2017-13-10",
      "2017-02-29",
    ]
  ) assert.equal(show("date", bad), "null", bad);
  assert.equal(show("date", 2017, 13, 1), "null");
  assert.equal(show("date", 2017, 1, 1.5), "null");
  assert.equal(show("date", -1000999999, 12, 1), "null");
  assert.equal(show("date", 1), "null");
  assert.equal(show("date", null), "null");
  assert.equal(show("date"), "null");
});

Deno.test("date and time() from a string or from date and time parts", () => {
  assert.equal(show("date and time", "2012-12-24"), 'date and time("2012-12-24T00:00:00")');
  assert.equal(
    show("date and time", "2017-12-31T11:22:33.456+01:35"),
    'date and time("2017-12-31T11:22:33.456+01:35")',
  );
  assert.equal(
    show("date and time", "2021-01-01T24:00:00"),
    'date and time("2021-01-02T00:00:00")',
  );
  assert.equal(
    show("date and time", at("2017-09-05T10:20:00@Europe/Paris"), at("09:15:30Z")),
    'date and time("2017-09-05T09:15:30Z")',
  );
  assert.equal(
    show("date and time", at("2017-01-01"), at("23:59:01@Europe/Paris")),
    'date and time("2017-01-01T23:59:01@Europe/Paris")',
  );
  assert.equal(
    showNamed("date and time", { date: at("2017-01-01"), time: at("23:59:01") }),
    'date and time("2017-01-01T23:59:01")',
  );
  for (
    const bad of [
      "2017-12-31T24:00:01",
      "2017-12-31T7:00:00",
      "2017-12-31T13:20:00@xyz/abc",
      "2017-12-31T13:20:00+19:00",
      "2017-12-31T13:20:00+02:00@Europe/Paris",
      "11:00:00",
    ]
  ) assert.equal(show("date and time", bad), "null", bad);
  assert.equal(show("date and time", at("2017-01-01"), null), "null");
});

Deno.test("time() from strings, date and time, and parts with an offset", () => {
  assert.equal(show("time", "10:30:00.0001+05:00:01"), 'time("10:30:00.0001+05:00:01")');
  assert.equal(show("time", "10:30:00@Etc/UTC"), 'time("10:30:00@Etc/UTC")');
  assert.equal(show("time", at("2016-12-24T00:00:01-01:00")), 'time("00:00:01-01:00")');
  assert.equal(show("time", 12, 59, 1.3, at("-PT1H")), 'time("12:59:01.3-01:00")');
  assert.equal(show("time", 23, 59, 0, at("PT0H")), 'time("23:59:00Z")');
  assert.equal(show("time", 23, 59, 0), 'time("23:59:00")');
  assert.equal(show("time", 24, 0, 0), "null");
  assert.equal(show("time", 1, 0, 60), "null");
  assert.equal(show("time", "25:00:00"), "null");
});

Deno.test("number() with grouping and decimal separators", () => {
  assert.equal(show("number", "1.000.000,01", ".", ","), "1000000.01");
  assert.equal(show("number", "1 000 000.01", " ", "."), "1000000.01");
  assert.equal(show("number", "1000000.01", null, "."), "1000000.01");
  assert.equal(show("number", "1,000,000", ",", null), "1000000");
  assert.equal(show("number", "1,000,000.01", ":", "."), "null");
  assert.equal(show("number", "1,000,000.00", ",", ","), "null");
  assert.equal(show("number", "foo,bar.001", ".", ","), "null");
  assert.equal(show("number", "1.000.000,01", "."), "null");
  assert.equal(
    showNamed("number", {
      from: "1.000.000,01",
      "decimal separator": ",",
      "grouping separator": ".",
    }),
    "1000000.01",
  );
  assert.equal(show("number", "12.5"), "12.5");
});

Deno.test("string() renders every kind of value", () => {
  assert.equal(show("string", 123.45), '"123.45"');
  assert.equal(show("string", true), '"true"');
  assert.equal(show("string", at("P1DT2H3M4.1234S")), '"P1DT2H3M4.1234S"');
  assert.equal(show("string", at("2018-12-10T10:30:00@Etc/UTC")), '"2018-12-10T10:30:00@Etc/UTC"');
  assert.equal(show("string", [1, 2, 3, [4, 5, "foo"]]), '"[1, 2, 3, [4, 5, \\"foo\\"]]"');
  assert.equal(show("string", { a: "foo", "{": 1 }), '"{a: \\"foo\\", \\"{\\": 1}"');
  assert.equal(show("string", null), "null");
  assert.equal(showNamed("string", { from: "foo" }), '"foo"');
  assert.equal(show("string", "foo", "bar"), "null");
});

Deno.test("duration() normalises both kinds", () => {
  assert.equal(show("duration", "PT1000M0.999999999S"), 'duration("PT16H40M0.999999999S")');
  assert.equal(show("duration", "P2DT274M"), 'duration("P2DT4H34M")');
  assert.equal(show("duration", "PT0.S"), 'duration("PT0S")');
  assert.equal(show("duration", "-P999999999M"), 'duration("-P83333333Y3M")');
  assert.equal(show("duration", "P0Y"), 'duration("P0M")');
  for (const bad of ["", "P", "P0", "1Y", "P1H", "P1S", "PT", "P1Y2D"]) {
    assert.equal(show("duration", bad), "null", bad);
  }
  assert.equal(show("duration", 2017), "null");
});

Deno.test("years and months duration() counts whole months between dates", () => {
  assert.equal(
    show("years and months duration", at("2011-12-22"), at("2013-08-24")),
    'duration("P1Y8M")',
  );
  assert.equal(
    show(
      "years and months duration",
      at("2016-08-25T15:20:59+02:00"),
      at("2017-08-10T10:20:00@Europe/Paris"),
    ),
    'duration("P11M")',
  );
  assert.equal(
    show(
      "years and months duration",
      at("2011-08-25T15:59:59@Europe/Paris"),
      at("2015-08-25T15:20:59+02:00"),
    ),
    'duration("P4Y")',
  );
  assert.equal(
    show("years and months duration", at("2013-08-24"), at("2011-12-22")),
    'duration("-P1Y8M")',
  );
  assert.equal(show("years and months duration", at("2013-08-24"), "x"), "null");
  assert.equal(String(callNamed("years and months duration", { from: at("2011-12-22") })), "null");
});
