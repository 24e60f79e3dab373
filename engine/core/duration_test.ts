import assert from "node:assert/strict";
import { formatDurationMillis, parseDurationMillis } from "./duration.ts";

Deno.test("exact ISO-8601 durations parse to milliseconds", () => {
  assert.equal(parseDurationMillis("PT30S"), 30_000);
  assert.equal(parseDurationMillis("PT0.5S"), 500);
  assert.equal(parseDurationMillis("P7D"), 7 * 86_400_000);
  assert.equal(parseDurationMillis("P1W"), 7 * 86_400_000);
  assert.equal(parseDurationMillis("P1DT2H3M4S"), 93_784_000);
  assert.equal(parseDurationMillis("PT0S"), 0);
});

Deno.test("calendar units and malformed text are refused", () => {
  for (const bad of ["P1M", "P1Y", "P", "PT", "30s", "PT-1S", "", "P1DT"]) {
    assert.equal(parseDurationMillis(bad), undefined, bad);
  }
});

Deno.test("durations render canonically", () => {
  assert.equal(formatDurationMillis(0), "PT0S");
  assert.equal(formatDurationMillis(90_000), "PT1M30S");
  assert.equal(formatDurationMillis(2 * 86_400_000), "P2D");
  assert.equal(formatDurationMillis(86_400_000 + 1500), "P1DT1.5S");
});
