import assert from "node:assert/strict";
import { parseTimer, parseTimerCycle, parseTimerDate, parseTimerDuration } from "./timer.ts";

Deno.test("exact durations parse to milliseconds", () => {
  assert.deepEqual(parseTimerDuration("PT15M"), {
    ok: true,
    spec: { kind: "duration", millis: 900_000 },
  });
  assert.deepEqual(parseTimerDuration(" P1DT2H "), {
    ok: true,
    spec: { kind: "duration", millis: 93_600_000 },
  });
  assert.deepEqual(parseTimerDuration("P1W"), {
    ok: true,
    spec: { kind: "duration", millis: 604_800_000 },
  });
  assert.deepEqual(parseTimerDuration("PT0.5S"), {
    ok: true,
    spec: { kind: "duration", millis: 500 },
  });
});

Deno.test("calendar durations are unsupported, not malformed", () => {
  for (const text of ["P1M", "P1Y", "P1Y2M", "P1MT1H"]) {
    const r = parseTimerDuration(text);
    assert.equal(r.ok, false, text);
    assert.equal(!r.ok && r.refusal, "unsupported", text);
  }
  // Minutes after T are exact.
  assert.equal(parseTimerDuration("PT1M").ok, true);
});

Deno.test("malformed durations are malformed", () => {
  for (const text of ["", "P", "PT", "15 minutes", "-PT1S", "PT1H30", "1H", "=PT5M"]) {
    const r = parseTimerDuration(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("dates need an offset or a zone", () => {
  assert.deepEqual(parseTimerDate("2026-03-01T09:00:00Z"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  assert.deepEqual(parseTimerDate("2026-03-01T10:00:00+01:00"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  assert.deepEqual(parseTimerDate("2026-03-01T10:00:00[Europe/Paris]"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  const local = parseTimerDate("2026-03-01T09:00:00");
  assert.equal(!local.ok && local.refusal, "unsupported");
  const dateOnly = parseTimerDate("2026-03-01");
  assert.equal(!dateOnly.ok && dateOnly.refusal, "unsupported");
  for (const text of ["tomorrow", "2026-13-01T09:00:00Z", "2026-02-30T09:00:00Z"]) {
    const r = parseTimerDate(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("cycles: bounded, unbounded, anchored at a start or bounded by an end", () => {
  assert.deepEqual(parseTimerCycle("R3/PT1H"), {
    ok: true,
    spec: { kind: "cycle", repetitions: 3, intervalMillis: 3_600_000 },
  });
  assert.deepEqual(parseTimerCycle("R/P1D"), {
    ok: true,
    spec: { kind: "cycle", repetitions: null, intervalMillis: 86_400_000 },
  });
  assert.deepEqual(parseTimerCycle("R2/2026-03-01T09:00:00Z/PT30M"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: 2,
      intervalMillis: 1_800_000,
      startEpochMillis: Date.UTC(2026, 2, 1, 9),
    },
  });
  assert.deepEqual(parseTimerCycle("R/PT1H/2026-12-31T00:00:00Z"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: null,
      intervalMillis: 3_600_000,
      endEpochMillis: Date.UTC(2026, 11, 31),
    },
  });
  assert.deepEqual(parseTimerCycle("R4/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: 4,
      intervalMillis: 21_600_000,
      startEpochMillis: Date.UTC(2026, 0, 1),
    },
  });
});

Deno.test("cron and calendar cycles are unsupported; broken cycles are malformed", () => {
  for (const text of ["0 0 * * MON", "*/5 * * * * ?", "R3/P1M"]) {
    const r = parseTimerCycle(text);
    assert.equal(!r.ok && r.refusal, "unsupported", text);
  }
  for (
    const text of ["PT1H", "R3", "R3/", "Rx/PT1H", "R0/PT1H", "R/PT0S", "R/2026-01-01T00:00:00Z"]
  ) {
    const r = parseTimerCycle(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("parseTimer dispatches on the BPMN form", () => {
  assert.equal(parseTimer("timeDuration", "PT1S").ok, true);
  assert.equal(parseTimer("timeDate", "PT1S").ok, false);
  assert.equal(parseTimer("timeCycle", "R/PT1S").ok, true);
});
