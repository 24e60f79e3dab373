import assert from "node:assert/strict";
import { civilFromDays, daysFromCivil, isoWeekOfYear } from "./_temporal_calendar.ts";
import {
  addMonthsToDate,
  compareDateTimes,
  compareTimes,
  formatTemporal,
  isValidZoneId,
  monthsBetween,
  parseDate,
  parseDateTime,
  parseDaysTimeDuration,
  parseDuration,
  parseTime,
  parseYearsMonthsDuration,
  sameTemporal,
} from "./temporal.ts";
import type { FeelDate, FeelDateTime, FeelTime } from "./values.ts";

const d = (s: string) => parseDate(s)!;
const dt = (s: string) => parseDateTime(s)!;
const tm = (s: string) => parseTime(s)!;

Deno.test("calendar arithmetic is proleptic Gregorian over ±999,999,999 years", () => {
  assert.equal(daysFromCivil(1970, 1, 1), 0);
  assert.equal(daysFromCivil(2000, 3, 1), 11017);
  for (const [y, m, day] of [[-999999999, 1, 1], [999999999, 12, 31], [0, 2, 29], [-1, 12, 31]]) {
    assert.deepEqual(civilFromDays(daysFromCivil(y, m, day)), { year: y, month: m, day });
  }
  for (let n = -800_000; n < 800_000; n += 997) {
    const c = civilFromDays(n);
    assert.equal(daysFromCivil(c.year, c.month, c.day), n);
  }
  assert.equal(isoWeekOfYear(2021, 1, 1), 53);
  assert.equal(isoWeekOfYear(2019, 12, 30), 1);
});

Deno.test("dates parse and print in XML Schema form", () => {
  for (
    const s of [
      "2017-12-31",
      "-2017-01-01",
      "999999999-12-31",
      "-999999999-12-31",
      "0000-01-01",
      "0099-01-01",
    ]
  ) {
    assert.equal(formatTemporal(d(s)), s);
  }
  for (
    const s of [
      "998-12-31",
      "01211-12-31",
      "+2012-12-02",
      "9999999999-12-25",
      "2017-02-29",
      "-0000-01-01",
    ]
  ) {
    assert.equal(parseDate(s), null, s);
  }
  assert.equal(formatTemporal(addMonthsToDate(d("2021-01-31"), 1)!), "2021-02-28");
  assert.equal(formatTemporal(addMonthsToDate(d("2020-02-29"), -12)!), "2019-02-28");
  assert.equal(addMonthsToDate(d("999999999-12-01"), 1), null);
});

Deno.test("times keep offsets, zones and exact fractions", () => {
  for (
    const s of [
      "10:30:00",
      "10:30:00.0001+05:00:01",
      "09:15:30.123456Z",
      "00:00:01-01:00",
      "10:30:00@Etc/UTC",
    ]
  ) {
    assert.equal(formatTemporal(tm(s)), s);
  }
  assert.equal(formatTemporal(tm("10:30:00+00:00")), "10:30:00Z");
  assert.equal(formatTemporal(tm("24:00:00")), "00:00:00");
  for (
    const s of [
      "24:00:01",
      "7:00:00",
      "07:1:00",
      "10:00:00+19:00",
      "10:00:00+05:0",
      "10:00:00@xyz/abc",
      "10:00:00@+05:00",
      "10:00",
    ]
  ) {
    assert.equal(parseTime(s), null, s);
  }
  assert.equal(compareTimes(tm("23:00:00-05:00"), tm("01:00:00Z")), 1);
  assert.equal(compareTimes(tm("10:00:00"), tm("10:00:00+05:00")), 0);
});

Deno.test("date-times: parsing, zones, huge years", () => {
  for (
    const s of [
      "2017-12-31T11:22:33.123456789",
      "-2017-12-31T11:22:33.456+01:35",
      "999999999-12-31T23:59:59.999999999@Europe/Paris",
      "-999999999-12-31T23:59:59.999999999+02:00",
      "2011-12-31T10:15:30@Etc/UTC",
    ]
  ) assert.equal(formatTemporal(dt(s)), s);
  assert.equal(formatTemporal(dt("2012-12-24")), "2012-12-24T00:00:00");
  assert.equal(formatTemporal(dt("2021-12-31T24:00:00")), "2022-01-01T00:00:00");
  assert.equal(parseDateTime("999999999-12-31T24:00:00"), null);
  assert.equal(parseDateTime("2011-12-03T10:15:30+01:00@Europe/Paris"), null);
  const paris = dt("999999999-06-01T12:00:00@Europe/Paris") as FeelDateTime;
  assert.equal(paris.time.zone.type, "zone");
  assert.equal(
    compareDateTimes(dt("2002-04-02T12:00:00-01:00"), dt("2002-04-02T17:00:00+04:00")),
    0,
  );
  assert.equal(
    compareDateTimes(dt("-999999999-01-01T00:00:00Z"), dt("999999999-01-01T00:00:00Z")),
    -1,
  );
  assert.equal(isValidZoneId("Australia/Melbourne"), true);
  assert.equal(isValidZoneId("Mars/Olympus"), false);
});

Deno.test("durations normalise and print canonically", () => {
  const cases: [string, string][] = [
    ["P1DT25H", "P2DT1H"],
    ["PT0.000S", "PT0S"],
    ["-PT1H2M", "-PT1H2M"],
    ["P0D", "PT0S"],
    ["PT3600S", "PT1H"],
    ["P26M", "P2Y2M"],
    ["P0Y", "P0M"],
    ["-P1Y", "-P1Y"],
    ["P99999999Y", "P99999999Y"],
  ];
  for (const [input, want] of cases) assert.equal(formatTemporal(parseDuration(input)!), want);
  assert.equal(parseDaysTimeDuration("P1Y"), null);
  assert.equal(parseYearsMonthsDuration("P1D"), null);
  for (const bad of ["P", "-P", "PT", "P1DT", "P1Y2D", "P1.5D", "1D", "p1d"]) {
    assert.equal(parseDuration(bad), null, bad);
  }
});

Deno.test("is-identity and months between", () => {
  assert.equal(sameTemporal(tm("23:00:50Z"), tm("23:00:50+00:00")), true);
  assert.equal(sameTemporal(tm("23:00:50@Etc/GMT"), tm("23:00:50Z")), false);
  assert.equal(sameTemporal(dt("2012-12-25T00:00:00"), dt("2012-12-25T00:00:00Z")), false);
  assert.equal(monthsBetween(d("2011-12-22") as FeelDate, d("2013-08-24") as FeelDate), 20);
  assert.equal(monthsBetween(d("2013-08-21") as FeelDate, d("2011-12-22") as FeelDate), -19);
  assert.equal(sameTemporal(tm("10:00:00") as FeelTime, tm("10:00:00.000") as FeelTime), true);
});
