/**
 * ISO-8601 timer expressions for the three BPMN timer forms: durations
 * (`PT15M`, `P2D`, `P1W`), dates (`2026-03-01T09:00:00Z`, or with an IANA
 * zone: `2026-03-01T09:00:00[Europe/Paris]`) and cycles
 * (`R3/PT1H`, `R/PT10M`, `R2/2026-03-01T09:00:00Z/P1D`,
 * `R/PT1H/2026-12-31T00:00:00Z`).
 *
 * Two kinds of refusal are kept apart on purpose: text that is not a timer
 * at all ("you wrote it wrong") and well-formed text asking for something
 * the engine does not do — cron syntax, calendar-length durations such as
 * `P1M`, dates without a zone ("the engine does not do that").
 *
 * @module
 */
import { parseDurationMillis } from "../core/duration.ts";
import type { TimerForm } from "./model.ts";
import { errorMessage } from "../core/errors.ts";

/** A parsed timer. Instants are epoch milliseconds. */
export type TimerSpec =
  | { readonly kind: "duration"; readonly millis: number }
  | { readonly kind: "date"; readonly epochMillis: number }
  | {
    readonly kind: "cycle";
    /** Number of occurrences; `null` repeats without bound. */
    readonly repetitions: number | null;
    readonly intervalMillis: number;
    /** First occurrence, when anchored; otherwise one interval after arming. */
    readonly startEpochMillis?: number;
    /** No occurrence after this instant. */
    readonly endEpochMillis?: number;
  };

/** Why a timer expression was refused. */
export type TimerRefusal = "malformed" | "unsupported";

/** The outcome of parsing a timer expression. */
export type TimerParse =
  | { readonly ok: true; readonly spec: TimerSpec }
  | { readonly ok: false; readonly refusal: TimerRefusal; readonly reason: string };

const ISO_DURATION =
  /^P(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?W)?(?:\d+(?:[.,]\d+)?D)?(?:T(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?$/;
const CALENDAR_PART = /^P(?:[^T]*[YM])/;
const CRON_FIELD = /^[\d*?/,LW#A-Za-z-]+$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function refuse(refusal: TimerRefusal, reason: string): TimerParse {
  return { ok: false, refusal, reason };
}

function looksLikeCron(text: string): boolean {
  const fields = text.split(/\s+/);
  return fields.length >= 5 && fields.length <= 7 && fields.every((f) => CRON_FIELD.test(f));
}

/** Parses a duration; calendar units are refused as unsupported. */
export function parseTimerDuration(text: string): TimerParse {
  const t = text.trim();
  if (!ISO_DURATION.test(t) || t === "P" || t.endsWith("T")) {
    return refuse("malformed", `'${t}' is not an ISO-8601 duration (PT15M, P2D, P1W)`);
  }
  if (CALENDAR_PART.test(t)) {
    return refuse(
      "unsupported",
      `'${t}' uses years or months, whose length depends on the calendar; use days or weeks`,
    );
  }
  const millis = parseDurationMillis(t);
  if (millis === undefined) {
    return refuse("unsupported", `'${t}' uses fractions beyond seconds; use smaller units`);
  }
  return { ok: true, spec: { kind: "duration", millis } };
}

/** Parses an instant; a date-time without an offset or zone is refused as unsupported. */
export function parseTimerDate(text: string): TimerParse {
  const t = text.trim();
  if (DATE_ONLY.test(t)) {
    return refuse("unsupported", `'${t}' has no time of day or zone; write e.g. ${t}T00:00:00Z`);
  }
  if (!DATE_TIME.test(t)) {
    return refuse("malformed", `'${t}' is not an ISO-8601 date-time (2026-03-01T09:00:00Z)`);
  }
  try {
    if (t.includes("[")) {
      return {
        ok: true,
        spec: { kind: "date", epochMillis: Temporal.ZonedDateTime.from(t).epochMilliseconds },
      };
    }
    if (/(?:Z|[+-]\d{2}:?\d{2})$/i.test(t)) {
      return {
        ok: true,
        spec: { kind: "date", epochMillis: Temporal.Instant.from(t).epochMilliseconds },
      };
    }
  } catch (error) {
    const reason = errorMessage(error);
    return refuse("malformed", `'${t}' is not a valid date-time: ${reason}`);
  }
  // Well-formed, but a local time would depend on the engine host's zone.
  try {
    Temporal.PlainDateTime.from(t);
  } catch {
    return refuse("malformed", `'${t}' is not a valid date-time`);
  }
  return refuse(
    "unsupported",
    `'${t}' has no offset or zone, so its instant would depend on the engine host; add Z, an offset or [Zone/Id]`,
  );
}

/** Parses a repeating interval `R[n]/…`; cron syntax is refused as unsupported. */
export function parseTimerCycle(text: string): TimerParse {
  const t = text.trim();
  if (looksLikeCron(t)) {
    return refuse("unsupported", `'${t}' looks like cron syntax; write a cycle as R[n]/<duration>`);
  }
  const parts = t.split("/");
  const head = /^R(\d*)$/.exec(parts[0]);
  if (!head || parts.length < 2 || parts.length > 3) {
    return refuse("malformed", `'${t}' is not an ISO-8601 repeating interval (R3/PT1H, R/P1D)`);
  }
  const repetitions = head[1] === "" ? null : Number(head[1]);
  if (repetitions === 0) return refuse("malformed", `'${t}' repeats zero times, so it never fires`);
  const pieces = parts.slice(1).map((p) =>
    p.startsWith("P") ? parseTimerDuration(p) : parseTimerDate(p)
  );
  for (const piece of pieces) if (!piece.ok) return piece;
  const specs = pieces.map((p) => (p as { spec: TimerSpec }).spec);
  let interval: number | undefined;
  let start: number | undefined;
  let end: number | undefined;
  if (specs.length === 1 && specs[0].kind === "duration") {
    interval = specs[0].millis;
  } else if (specs.length === 2) {
    const [a, b] = specs;
    if (a.kind === "date" && b.kind === "duration") {
      start = a.epochMillis;
      interval = b.millis;
    } else if (a.kind === "duration" && b.kind === "date") {
      interval = a.millis;
      end = b.epochMillis;
    } else if (a.kind === "date" && b.kind === "date") {
      start = a.epochMillis;
      interval = b.epochMillis - a.epochMillis;
    }
  }
  if (interval === undefined) {
    return refuse("malformed", `'${t}' needs a duration: R[n]/<duration>, R[n]/<start>/<duration>`);
  }
  if (interval <= 0) {
    return refuse(
      "malformed",
      `'${t}' repeats every ${interval} ms; the interval must be positive`,
    );
  }
  const spec: {
    -readonly [K in keyof Extract<TimerSpec, { kind: "cycle" }>]: Extract<
      TimerSpec,
      { kind: "cycle" }
    >[K];
  } = { kind: "cycle", repetitions, intervalMillis: interval };
  if (start !== undefined) spec.startEpochMillis = start;
  if (end !== undefined) spec.endEpochMillis = end;
  return { ok: true, spec };
}

/** Parses a timer expression of the given BPMN form. */
export function parseTimer(form: TimerForm, text: string): TimerParse {
  switch (form) {
    case "timeDuration":
      return parseTimerDuration(text);
    case "timeDate":
      return parseTimerDate(text);
    case "timeCycle":
      return parseTimerCycle(text);
  }
}
