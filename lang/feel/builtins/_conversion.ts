/**
 * Conversion built-ins: `date`, `date and time`, `time`, `number`,
 * `string`, `duration` and `years and months duration`.
 *
 * @module
 */
import { toFeelString } from "../semantics.ts";
import {
  dateAtMidnightUtc,
  isValidDate,
  makeDateTime,
  makeTime,
  MAX_OFFSET_SECONDS,
  monthsBetween,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
} from "../temporal.ts";
import {
  type EvalEnv,
  type FeelDate,
  feelDate,
  type FeelDateTime,
  type FeelDaysTimeDuration,
  feelNumber,
  type FeelTime,
  type FeelValue,
  type FeelZone,
  NO_ZONE,
  yearsMonthsDuration,
} from "../values.ts";
import { type Args, builtin, describe, fail, isNum, optional, param, T } from "./_define.ts";

const date = builtin(
  "date",
  [[param("from")], [param("year", T.number), param("month", T.number), param("day", T.number)]],
  (args, env, sig) => {
    if (sig === 1) return dateFromParts(args, env);
    const from = args[0];
    if (typeof from === "string") {
      return parseDate(from) ?? fail(env, "date", `"${from}" is not a valid date`);
    }
    switch (describe(from)) {
      case "date":
        return from!;
      case "date and time":
        return (from as FeelDateTime).date;
    }
    return fail(env, "date", `cannot convert ${describe(from)} to a date`);
  },
);

function dateFromParts(args: Args, env: EvalEnv): FeelValue {
  const [y, m, d] = args;
  if (!isNum(y) || !isNum(m) || !isNum(d)) {
    return fail(env, "date", "year, month and day must be numbers");
  }
  if (!y.isInteger() || !m.isInteger() || !d.isInteger()) {
    return fail(env, "date", "year, month and day must be integers");
  }
  const year = y.toNumber();
  const month = m.toNumber();
  const day = d.toNumber();
  if (!isValidDate(year, month, day)) {
    return fail(env, "date", `${year}-${month}-${day} is not a valid date`);
  }
  return feelDate(year, month, day);
}

const dateAndTime = builtin(
  "date and time",
  [[param("from")], [param("date"), param("time", T.time)]],
  (args, env, sig) => {
    if (sig === 0) {
      const from = args[0];
      if (typeof from === "string") {
        return parseDateTime(from) ??
          fail(env, "date and time", `"${from}" is not a valid date and time`);
      }
      if (describe(from) === "date and time") return from!;
      return fail(env, "date and time", `cannot convert ${describe(from)} to a date and time`);
    }
    const [d, t] = args;
    let day: FeelDate;
    if (describe(d) === "date") day = d as FeelDate;
    else if (describe(d) === "date and time") day = (d as FeelDateTime).date;
    else {return fail(
        env,
        "date and time",
        `date must be a date or date and time, got ${describe(d)}`,
      );}
    if (t === null) return fail(env, "date and time", "time is null");
    return makeDateTime(day, t as FeelTime);
  },
);

const time = builtin(
  "time",
  [
    [param("from")],
    [
      param("hour", T.number),
      param("minute", T.number),
      param("second", T.number),
      optional("offset"),
    ],
  ],
  (args, env, sig) => {
    if (sig === 1) return timeFromParts(args, env);
    const from = args[0];
    if (typeof from === "string") {
      return parseTime(from) ?? fail(env, "time", `"${from}" is not a valid time`);
    }
    switch (describe(from)) {
      case "time":
        return from!;
      case "date and time": {
        const t = (from as FeelDateTime).time;
        return makeTime(t.hour, t.minute, t.second, t.zone);
      }
      case "date":
        return dateAtMidnightUtc(from as FeelDate).time;
    }
    return fail(env, "time", `cannot convert ${describe(from)} to a time`);
  },
);

function timeFromParts(args: Args, env: EvalEnv): FeelValue {
  const [h, m, s, offset] = args;
  if (!isNum(h) || !isNum(m) || !isNum(s)) {
    return fail(env, "time", "hour, minute and second must be numbers");
  }
  if (!h.isInteger() || !m.isInteger() || h.lt(0) || h.gt(23) || m.lt(0) || m.gt(59)) {
    return fail(env, "time", "hour must be 0–23 and minute 0–59, as integers");
  }
  if (s.lt(0) || s.gte(60)) return fail(env, "time", "second must be at least 0 and below 60");
  let zone: FeelZone = NO_ZONE;
  if (offset !== undefined && offset !== null) {
    if (describe(offset) !== "days and time duration") {
      return fail(env, "time", `offset must be a days and time duration, got ${describe(offset)}`);
    }
    const secs = (offset as FeelDaysTimeDuration).seconds;
    if (!secs.isInteger() || secs.abs().gt(MAX_OFFSET_SECONDS)) {
      return fail(env, "time", "offset must be whole seconds within ±18 hours");
    }
    zone = { type: "offset", seconds: secs.toNumber() };
  }
  return makeTime(h.toNumber(), m.toNumber(), s, zone);
}

const GROUPING = new Set([" ", ",", "."]);
const DECIMAL = new Set([",", "."]);

const number = builtin(
  "number",
  [
    [param("from", T.string)],
    [param("from", T.string), param("grouping separator"), param("decimal separator")],
  ],
  (args, env, sig) => {
    const from = args[0];
    if (typeof from !== "string") {
      return fail(env, "number", `from must be a string, got ${describe(from)}`);
    }
    let text = from;
    if (sig === 1) {
      const g = args[1];
      const d = args[2];
      if (g !== null && !(typeof g === "string" && GROUPING.has(g))) {
        return fail(env, "number", "grouping separator must be space, comma, period or null");
      }
      if (d !== null && !(typeof d === "string" && DECIMAL.has(d))) {
        return fail(env, "number", "decimal separator must be comma, period or null");
      }
      if (g !== null && g === d) {
        return fail(env, "number", "grouping and decimal separators must differ");
      }
      if (typeof g === "string") text = text.split(g).join("");
      if (typeof d === "string" && d !== ".") text = text.replace(d, ".");
    }
    return feelNumber(text) ?? fail(env, "number", `"${from}" is not a number`);
  },
);

const string = builtin("string", [[param("from")]], (args, env) => {
  const from = args[0];
  if (from === null || from === undefined) return fail(env, "string", "from is null");
  return toFeelString(from);
});

const duration = builtin("duration", [[param("from", T.string)]], (args, env) => {
  const from = args[0];
  if (typeof from !== "string") {
    return fail(env, "duration", `from must be a string, got ${describe(from)}`);
  }
  return parseDuration(from) ?? fail(env, "duration", `"${from}" is not a valid duration`);
});

function dateOf(v: FeelValue | undefined): FeelDate | null {
  const k = describe(v);
  if (k === "date") return v as FeelDate;
  if (k === "date and time") return (v as FeelDateTime).date;
  return null;
}

const yearsAndMonthsDuration = builtin(
  "years and months duration",
  [[param("from"), param("to")]],
  (args, env) => {
    const from = dateOf(args[0]);
    const to = dateOf(args[1]);
    if (from === null || to === null) {
      return fail(env, "years and months duration", "from and to must be dates or dates and times");
    }
    return yearsMonthsDuration(monthsBetween(from, to));
  },
);

/** The conversion built-ins. */
export const conversionBuiltins = [
  date,
  dateAndTime,
  time,
  number,
  string,
  duration,
  yearsAndMonthsDuration,
];
