/**
 * A strict parser of the Prometheus text exposition format (0.0.4), for
 * tests: every line must be a well-formed `# HELP`, `# TYPE` or sample
 * line; a family's TYPE comes before its samples and only once; sample
 * names must belong to their family (`_total` for a counter; `_bucket`,
 * `_sum`, `_count` for a histogram, whose buckets must be cumulative and
 * end in `+Inf` equal to `_count`); label names and escapes must be valid
 * and no series may repeat. Any violation throws with the line number.
 *
 * @module
 */

/** One sample. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family. */
export interface Family {
  readonly name: string;
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help?: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(text: string, where: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new Error(`${where}: '${text}' is not a sample value`);
  }
  return Number(text);
}

/** Parses `name{a="b",…} value [timestamp]`. */
function parseSample(line: string, where: string): Sample {
  let i = 0;
  while (i < line.length && /[a-zA-Z0-9_:]/.test(line[i])) i++;
  const name = line.slice(0, i);
  if (!NAME.test(name)) throw new Error(`${where}: bad metric name '${name}'`);
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i++;
    while (line[i] !== "}") {
      const start = i;
      while (i < line.length && /[a-zA-Z0-9_]/.test(line[i])) i++;
      const label = line.slice(start, i);
      if (!LABEL.test(label)) throw new Error(`${where}: bad label name '${label}'`);
      if (line[i] !== "=" || line[i + 1] !== '"') throw new Error(`${where}: expected ="`);
      i += 2;
      let value = "";
      for (;;) {
        const c = line[i++];
        if (c === undefined) throw new Error(`${where}: unterminated label value`);
        if (c === '"') break;
        if (c === "\\") {
          const e = line[i++];
          if (e === "n") value += "\n";
          else if (e === "\\" || e === '"') value += e;
          else throw new Error(`${where}: bad escape \\${e}`);
        } else value += c;
      }
      if (label in labels) throw new Error(`${where}: label '${label}' repeated`);
      labels[label] = value;
      if (line[i] === ",") i++;
      else if (line[i] !== "}") throw new Error(`${where}: expected , or }`);
    }
    i++;
  }
  if (line[i] !== " ") throw new Error(`${where}: expected a space before the value`);
  const rest = line.slice(i + 1).split(" ");
  if (rest.length > 2 || (rest.length === 2 && !/^-?\d+$/.test(rest[1]))) {
    throw new Error(`${where}: trailing text after the value`);
  }
  return { name, labels, value: parseValue(rest[0], where) };
}

function familyOf(families: Map<string, Family>, sample: string): Family | undefined {
  for (
    const [suffix, types] of [
      ["_total", ["counter"]],
      ["_bucket", ["histogram"]],
      ["_sum", ["histogram", "summary"]],
      ["_count", ["histogram", "summary"]],
    ] as const
  ) {
    if (!sample.endsWith(suffix)) continue;
    const base = families.get(sample.slice(0, -suffix.length));
    if (base && (types as readonly string[]).includes(base.type)) return base;
  }
  const exact = families.get(sample);
  return exact && exact.type !== "histogram" ? exact : undefined;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith("_bucket")) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, family.name), s.value]);
    } else if (s.name.endsWith("_count")) entry.count = s.value;
  }
  for (const { buckets, count } of series.values()) {
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i][0] <= buckets[i - 1][0] || buckets[i][1] < buckets[i - 1][1]) {
        throw new Error(`${family.name}: buckets not ascending and cumulative`);
      }
    }
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity || last[1] !== count) {
      throw new Error(`${family.name}: the +Inf bucket must equal _count`);
    }
  }
}

/** Parses a whole exposition; throws on the first violation. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((line, n) => {
    const where = `line ${n + 1}`;
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)/.test(line)) throw new Error(`${where}: malformed ${line}`);
        return;
      }
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name '${name}'`);
      if (kind === "TYPE") {
        if (families.has(name)) throw new Error(`${where}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type '${rest}'`);
        families.set(name, { name, type: rest as Family["type"], samples: [] });
      } else {
        const family = families.get(name);
        if (family) family.help = rest;
      }
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`${where}: ${sample.name} follows no matching TYPE line`);
    const key = sample.name + JSON.stringify(Object.entries(sample.labels).sort());
    if (seen.has(key)) throw new Error(`${where}: series ${key} repeated`);
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) {
    if (family.type === "histogram") checkHistogram(family);
  }
  return families;
}
