/**
 * The typed value encoding of snapshot variables: `<tag>|<payload>`, one
 * ASCII tag, a separator, then the payload. Only the first `|` is
 * structural, so a string whose text is `n|42` is `s|n|42`.
 *
 * | tag | value                                                           |
 * | --- | --------------------------------------------------------------- |
 * | `n` | number, canonical decimal text (`n|1250.75`)                     |
 * | `b` | boolean (`b|false`)                                              |
 * | `s` | string (`s|INB-7`); also functions and ranges, as their FEEL text |
 * | `z` | null (`z|`)                                                      |
 * | `j` | list, context or temporal, as JSON (`j|[1,{"sku":"A-1"}]`)        |
 *
 * Inside JSON, numbers keep every digit (they are read back as decimals,
 * not floats), contexts keep their entry order, and the temporal types ride
 * a single-key object: `{"@d":"2026-03-01"}` (date), `{"@t":…}` (time),
 * `{"@dt":…}` (date and time), `{"@dtd":"P1DT2H"}` (days and time
 * duration), `{"@ymd":"P1Y2M"}` (years and months duration). A context key
 * that starts with `@` is written with the `@` doubled, so the two never
 * mix. A zoned date-time whose offset is not the one its zone gives the
 * wall time first (the second occurrence of a repeated hour) carries it
 * after a `;`: `{"@dt":"2026-10-25T02:30:00@Europe/Paris;3600"}`.
 *
 * Every value has exactly one rendering, so equal values encode to equal
 * text and `encode(decode(text)) === text` for every text this module
 * writes.
 *
 * @module
 */
import {
  compile,
  type CompiledExpression,
  FeelContext,
  FeelDecimal,
  FeelFunction,
  type FeelValue,
  formatFeel,
  toJs,
} from "../../lang/feel/mod.ts";

/** Encodes a FEEL value as typed text. */
export function encodeValue(v: FeelValue): string {
  if (v === null) return "z|";
  switch (typeof v) {
    case "string":
      return `s|${v}`;
    case "boolean":
      return v ? "b|true" : "b|false";
  }
  if (v instanceof FeelDecimal) return `n|${decimalText(v)}`;
  if (isOpaque(v)) return `s|${formatFeel(v)}`;
  return `j|${json(v)}`;
}

/** True for values that do not survive a park (functions, ranges): they persist as text. */
function isOpaque(v: FeelValue): boolean {
  return v instanceof FeelFunction || (typeof v === "object" && v !== null && "kind" in v &&
    v.kind === "range");
}

/** Whether a value needs the typed form (everything but a plain string). */
export function needsTyping(v: FeelValue): boolean {
  return typeof v !== "string";
}

function decimalText(d: InstanceType<typeof FeelDecimal>): string {
  return d.isZero() ? "0" : d.toString();
}

function json(v: FeelValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof FeelDecimal) return decimalText(v);
  if (Array.isArray(v)) return `[${v.map(json).join(",")}]`;
  if (v instanceof FeelContext) {
    const parts: string[] = [];
    for (const [k, x] of v.entries) {
      parts.push(`${JSON.stringify(k.startsWith("@") ? `@${k}` : k)}:${json(x)}`);
    }
    return `{${parts.join(",")}}`;
  }
  if (isOpaque(v)) return JSON.stringify(formatFeel(v));
  const t = v as Temporal;
  switch (t.kind) {
    case "date":
      return `{"@d":${JSON.stringify(toJs(t))}}`;
    case "time":
      return `{"@t":${JSON.stringify(toJs(t))}}`;
    case "date and time":
      return `{"@dt":${JSON.stringify(dateTimeText(t))}}`;
    case "days and time duration":
      return `{"@dtd":${JSON.stringify(toJs(t))}}`;
    case "years and months duration":
      return `{"@ymd":${JSON.stringify(toJs(t))}}`;
  }
  return JSON.stringify(formatFeel(v));
}

type DateTime = Extract<FeelValue, { kind: "date and time" }>;
type Temporal = Extract<
  FeelValue,
  {
    kind:
      | "date"
      | "time"
      | "date and time"
      | "days and time duration"
      | "years and months duration";
  }
>;

function dateTimeText(v: DateTime): string {
  const text = toJs(v) as string;
  const zone = v.time.zone;
  if (zone.type !== "zone" || zone.offset === undefined) return text;
  const parsed = parse("dateTime", text);
  const parsedOffset = parsed !== null && typeof parsed === "object" && "kind" in parsed &&
      parsed.kind === "date and time" && parsed.time.zone.type === "zone"
    ? parsed.time.zone.offset
    : undefined;
  return parsedOffset === zone.offset ? text : `${text};${zone.offset}`;
}

/** Thrown for text that is not a typed value. */
export class TypedValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TypedValueError";
  }
}

/** Decodes typed text. Throws {@link TypedValueError} on malformed text. */
export function decodeValue(text: string): FeelValue {
  const bar = text.indexOf("|");
  if (bar !== 1) throw new TypedValueError(`'${text.slice(0, 20)}' has no type tag`);
  const payload = text.slice(2);
  switch (text[0]) {
    case "s":
      return payload;
    case "z":
      if (payload !== "") throw new TypedValueError("a null carries no payload");
      return null;
    case "b":
      if (payload === "true") return true;
      if (payload === "false") return false;
      throw new TypedValueError(`'${payload}' is not a boolean`);
    case "n":
      return number(payload);
    case "j":
      return new JsonReader(payload).document();
    default:
      throw new TypedValueError(`unknown type tag '${text[0]}'`);
  }
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function number(text: string): FeelValue {
  if (!NUMBER.test(text)) throw new TypedValueError(`'${text}' is not a number`);
  return new FeelDecimal(text);
}

const PARSERS: Record<string, string> = {
  date: "date(s)",
  time: "time(s)",
  dateTime: "date and time(s)",
  duration: "duration(s)",
  shift: "v + duration(d)",
};
const compiled = new Map<string, CompiledExpression>();

function parse(kind: string, s: string, extra: Record<string, unknown> = {}): FeelValue {
  let c = compiled.get(kind);
  if (!c) {
    const r = compile(PARSERS[kind]);
    if (r.diagnostics) throw new TypedValueError(r.diagnostics[0].message);
    compiled.set(kind, c = r.compiled);
  }
  const r = c.evaluate({ s, ...extra }, { deterministic: true });
  return r.diagnostics === undefined ? r.value : null;
}

function temporal(tag: string, text: string): FeelValue {
  let v: FeelValue;
  switch (tag) {
    case "@d":
      v = parse("date", text);
      break;
    case "@t":
      v = parse("time", text);
      break;
    case "@dt": {
      const semi = text.indexOf(";");
      v = parse("dateTime", semi < 0 ? text : text.slice(0, semi));
      if (semi >= 0 && v !== null) v = shiftToOffset(v, Number(text.slice(semi + 1)));
      break;
    }
    case "@dtd":
    case "@ymd":
      v = parse("duration", text);
      break;
    default:
      throw new TypedValueError(`unknown temporal tag '${tag}'`);
  }
  if (v === null) throw new TypedValueError(`'${text}' is not a valid ${tag} value`);
  return v;
}

// The other occurrence of a repeated wall time: move along the time line by
// the offset difference, which the zone renders as the same wall time.
function shiftToOffset(v: FeelValue, offset: number): FeelValue {
  const dt = v as DateTime;
  const zone = dt.time.zone;
  if (zone.type !== "zone" || zone.offset === undefined || zone.offset === offset) return v;
  const seconds = zone.offset - offset;
  return parse("shift", "", { v, d: `PT${seconds}S` });
}

/** A JSON reader that keeps numbers as decimals and contexts in order. */
class JsonReader {
  #i = 0;
  constructor(readonly text: string) {}

  document(): FeelValue {
    const v = this.#value();
    if (this.#i !== this.text.length) this.#fail("trailing text");
    return v;
  }

  #fail(why: string): never {
    throw new TypedValueError(`malformed JSON value at ${this.#i}: ${why}`);
  }

  #value(): FeelValue {
    const c = this.text[this.#i];
    if (c === "{") return this.#object();
    if (c === "[") return this.#array();
    if (c === '"') return this.#string();
    if (this.text.startsWith("null", this.#i)) return this.#literal("null", null);
    if (this.text.startsWith("true", this.#i)) return this.#literal("true", true);
    if (this.text.startsWith("false", this.#i)) return this.#literal("false", false);
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.#i));
    if (!m) this.#fail("unexpected character");
    this.#i += m[0].length;
    return new FeelDecimal(m[0]);
  }

  #literal(word: string, v: FeelValue): FeelValue {
    this.#i += word.length;
    return v;
  }

  #string(): string {
    const start = this.#i;
    this.#i++;
    while (this.#i < this.text.length && this.text[this.#i] !== '"') {
      this.#i += this.text[this.#i] === "\\" ? 2 : 1;
    }
    if (this.#i >= this.text.length) this.#fail("unterminated string");
    this.#i++;
    return JSON.parse(this.text.slice(start, this.#i));
  }

  #array(): FeelValue[] {
    this.#i++;
    const out: FeelValue[] = [];
    if (this.text[this.#i] === "]") {
      this.#i++;
      return out;
    }
    for (;;) {
      out.push(this.#value());
      const c = this.text[this.#i++];
      if (c === "]") return out;
      if (c !== ",") this.#fail("expected , or ]");
    }
  }

  #object(): FeelValue {
    this.#i++;
    const entries = new Map<string, FeelValue>();
    if (this.text[this.#i] === "}") {
      this.#i++;
      return new FeelContext(entries);
    }
    for (;;) {
      if (this.text[this.#i] !== '"') this.#fail("expected a key");
      const key = this.#string();
      if (this.text[this.#i++] !== ":") this.#fail("expected :");
      if (key.startsWith("@") && !key.startsWith("@@")) {
        const text = this.#value();
        if (typeof text !== "string" || this.text[this.#i++] !== "}" || entries.size > 0) {
          this.#fail("a temporal is a single-key object holding text");
        }
        return temporal(key, text);
      }
      entries.set(key.startsWith("@@") ? key.slice(1) : key, this.#value());
      const c = this.text[this.#i++];
      if (c === "}") return new FeelContext(entries);
      if (c !== ",") this.#fail("expected , or }");
    }
  }
}
