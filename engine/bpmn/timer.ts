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
 * A timer text that starts with `=` is a FEEL expression instead (the
 * Camunda 8 convention): {@link timerFeelExpression} gives the FEEL part,
 * and {@link timerFromValue} turns what it evaluated to into a spec under
 * the same rules as the literal text.
 *
 * @module
 */
import { type FeelDateTime, type FeelValue, formatFeel, kindName } from "../../lang/feel/mod.ts";
import { parseDurationMillis } from "../core/duration.ts";
import type { Expression, TimerForm } from "./model.ts";
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

/** True when a timer text is a FEEL expression: it starts with `=`. */
export function isTimerExpression(text: string): boolean {
  return text.startsWith("=");
}

/** Camunda 7 (JUEL) expressions, `${…}` or `#{…}`, which the engine does not evaluate. */
const JUEL = /^[$#]\{([\s\S]*)\}$/;
const SIMPLE_PATH = /^[A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_][\w]*)*$/;

/**
 * For a timer text written as a JUEL expression (`${delay}`), the FEEL form
 * to write instead (`=delay`; `=<FEEL expression>` when the JUEL body is
 * more than a variable path); undefined for any other text.
 */
export function juelTimerHint(text: string): string | undefined {
  const m = JUEL.exec(text.trim());
  if (!m) return undefined;
  const body = m[1].trim();
  return SIMPLE_PATH.test(body) ? `=${body.replace(/\s+/g, "")}` : "=<FEEL expression>";
}

// One derived expression per model expression, so validation (which compiles
// it) and the planner (which looks the compiled form up by identity) agree.
const feelParts = new WeakMap<Expression, Expression>();

/**
 * The FEEL part of a timer text `=…`: the text after the `=`, positioned in
 * the file so a FEEL error points inside it. Undefined when the text is not
 * an expression. The same object is answered for the same model expression.
 */
export function timerFeelExpression(expression: Expression): Expression | undefined {
  if (!isTimerExpression(expression.text)) return undefined;
  const known = feelParts.get(expression);
  if (known) return known;
  const text = expression.text.slice(1).trimStart();
  const skip = expression.text.length - text.length;
  const skipped = expression.text.slice(0, skip).split("\n");
  const line = expression.line + skipped.length - 1;
  const column = skipped.length > 1
    ? skipped[skipped.length - 1].length + 1
    : expression.column + skip;
  const part: Expression = {
    text,
    line,
    column,
    rawStart: expression.rawStart,
    rawEnd: expression.rawEnd,
    lead: expression.lead + skip,
    ...(expression.language === undefined ? {} : { language: expression.language }),
  };
  feelParts.set(expression, part);
  return part;
}

const ACCEPTS: Readonly<Record<TimerForm, string>> = {
  timeDuration: "a days and time duration or an ISO-8601 duration string (PT15M)",
  timeDate: "a date and time with an offset or zone, or an ISO-8601 date-time string",
  timeCycle: "an ISO-8601 repeating interval string (R3/PT1H, R/P1D)",
};

/**
 * Turns the value a timer expression evaluated to into a spec. Strings are
 * read as the literal text would be; FEEL durations and date-times are
 * taken as they are, under the literal form's rules (no calendar months,
 * no zone-less instants). A negative duration is refused: a timer cannot
 * come due before it is armed.
 */
export function timerFromValue(form: TimerForm, value: FeelValue): TimerParse {
  if (typeof value === "string") {
    // A bare duration is not a cycle, as in the literal form; say how to write one.
    if (form === "timeCycle" && /^P/.test(value.trim())) {
      return refuse(
        "malformed",
        `'${value.trim()}' is a duration, not a cycle; write R/${value.trim()} to repeat without bound or R<n>/${value.trim()} for n times`,
      );
    }
    return parseTimer(form, value);
  }
  if (value !== null && typeof value === "object" && "kind" in value) {
    if (form === "timeDuration" && value.kind === "days and time duration") {
      const millis = Math.round(value.seconds.toNumber() * 1000);
      if (!Number.isSafeInteger(millis)) {
        return refuse("malformed", `${formatFeel(value)} is too long to be a timer`);
      }
      if (millis < 0) {
        return refuse(
          "malformed",
          `${formatFeel(value)} is negative; a timer cannot be due before it is armed`,
        );
      }
      return { ok: true, spec: { kind: "duration", millis } };
    }
    if (form === "timeDuration" && value.kind === "years and months duration") {
      return refuse(
        "unsupported",
        `${
          formatFeel(value)
        } is a years and months duration, whose length depends on the calendar; use days or weeks`,
      );
    }
    if (form === "timeDate" && value.kind === "date and time") return instantOf(value);
    if (form === "timeDate" && value.kind === "date") {
      return refuse(
        "unsupported",
        `${
          formatFeel(value)
        } has no time of day or zone; give a date and time with an offset or zone`,
      );
    }
    if (form === "timeCycle" && value.kind === "days and time duration") {
      return refuse(
        "malformed",
        `${
          formatFeel(value)
        } is a duration, not a cycle; give a string such as "R/PT1H" (without bound) or "R3/PT1H"`,
      );
    }
  }
  return refuse(
    "malformed",
    `${
      kindName(value) === "null" ? "null" : `a ${kindName(value)} (${formatFeel(value)})`
    } is not ${ACCEPTS[form]}`,
  );
}

/** The instant of a FEEL date and time; one without offset or zone is refused like the literal. */
function instantOf(value: FeelDateTime): TimerParse {
  const { date, time } = value;
  const zone = time.zone;
  if (zone.type === "none") {
    return refuse(
      "unsupported",
      `${
        formatFeel(value)
      } has no offset or zone, so its instant would depend on the engine host; add Z, an offset or @Zone/Id`,
    );
  }
  try {
    const millis = Math.round(time.second.toNumber() * 1000);
    const local = Temporal.PlainDateTime.from({
      year: date.year,
      month: date.month,
      day: date.day,
      hour: time.hour,
      minute: time.minute,
      second: Math.floor(millis / 1000),
      millisecond: millis % 1000,
    }, { overflow: "reject" });
    let epochMillis: number;
    if (zone.type === "offset") {
      epochMillis = local.toZonedDateTime("UTC").epochMilliseconds - zone.seconds * 1000;
    } else if (zone.offset !== undefined) {
      // The resolved offset tells the two occurrences of an ambiguous wall time apart.
      epochMillis = local.toZonedDateTime("UTC").epochMilliseconds - zone.offset * 1000;
    } else {
      epochMillis = local.toZonedDateTime(zone.id, { disambiguation: "earlier" }).epochMilliseconds;
    }
    return { ok: true, spec: { kind: "date", epochMillis } };
  } catch (error) {
    return refuse(
      "malformed",
      `${formatFeel(value)} is not a usable instant: ${errorMessage(error)}`,
    );
  }
}
