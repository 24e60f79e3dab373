/**
 * The engine's meters: counters, gauges read when collected, and
 * histograms, each with a fixed list of label names. Labels pass an
 * allowlist: only names from {@link METRIC_LABELS} can be declared at all
 * (no instance ids, no business keys), and the operator's
 * `sutra.telemetry.metrics.labels` narrows that further; a label outside
 * it is dropped and its series merge.
 *
 * @module
 */

/** Every label name a meter may carry: each one's values are bounded by the deployed models. */
export const METRIC_LABELS = [
  "process",
  "node",
  "channel",
  "lane",
  "kind",
  "outcome",
  "code",
  "scheme",
  "destination",
  "deployment",
  "tenant",
] as const;

/** One allowed label name. */
export type MetricLabel = typeof METRIC_LABELS[number];

/** Label values of one series. */
export type Labels = Partial<Record<MetricLabel, string | number>>;

/** What an instrument is. */
export interface InstrumentDeclaration {
  /** Dotted name, e.g. `sutra.instance.started`. */
  readonly name: string;
  readonly description: string;
  /** UCUM unit (`1`, `ms`). */
  readonly unit?: string;
  readonly labels: readonly MetricLabel[];
}

/** One series' value at collection. */
export interface Point {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One histogram series at collection. */
export interface HistogramPoint {
  readonly labels: Readonly<Record<string, string>>;
  readonly count: number;
  readonly sum: number;
  /** Counts per bucket (not cumulative), one more than the bounds. */
  readonly buckets: readonly number[];
}

/** A collected instrument. */
export type MetricData =
  | InstrumentDeclaration & { readonly kind: "counter" | "gauge"; readonly points: Point[] }
  | InstrumentDeclaration & {
    readonly kind: "histogram";
    readonly bounds: readonly number[];
    readonly points: HistogramPoint[];
  };

/** A monotonic counter. */
export interface Counter {
  add(value: number, labels?: Labels): void;
  /** One series of the counter, resolved once (for a hot path that counts it often). */
  bind(labels?: Labels): (value: number) => void;
}

/** A histogram of recorded values. */
export interface Histogram {
  record(value: number, labels?: Labels): void;
}

/** Reads a gauge's current series. */
export type GaugeReader = () => Point[] | Promise<Point[]>;

/** Default histogram bounds for milliseconds. */
export const MILLISECOND_BOUNDS: readonly number[] = [
  1,
  5,
  10,
  25,
  50,
  100,
  250,
  500,
  1_000,
  2_500,
  5_000,
  10_000,
  30_000,
  60_000,
  300_000,
];

type Instrument =
  | { decl: InstrumentDeclaration; kind: "counter"; series: Map<string, Point & { value: number }> }
  | { decl: InstrumentDeclaration; kind: "gauge"; read: GaugeReader; monotonic: boolean }
  | {
    decl: InstrumentDeclaration;
    kind: "histogram";
    bounds: readonly number[];
    series: Map<
      string,
      { labels: Record<string, string>; count: number; sum: number; buckets: number[] }
    >;
  };

/** Parses a comma-separated label allowlist; a string says what is wrong. */
export function parseLabelAllowlist(text: string): Set<MetricLabel> | string {
  const names = text.split(",").map((n) => n.trim()).filter((n) => n !== "");
  const unknown = names.filter((n) => !(METRIC_LABELS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    return `${unknown.map((n) => `'${n}'`).join(", ")} cannot be a metric label (allowed: ${
      METRIC_LABELS.join(", ")
    })`;
  }
  return new Set(names as MetricLabel[]);
}

/** The meters of one engine. */
export class MetricRegistry {
  readonly #allow: ReadonlySet<MetricLabel>;
  readonly #instruments = new Map<string, Instrument>();

  /** A registry keeping only the labels in `allow` (default: all of {@link METRIC_LABELS}). */
  constructor(allow: ReadonlySet<MetricLabel> = new Set(METRIC_LABELS)) {
    this.#allow = allow;
  }

  #declare(decl: InstrumentDeclaration): InstrumentDeclaration {
    if (this.#instruments.has(decl.name)) throw new Error(`meter '${decl.name}' declared twice`);
    for (const label of decl.labels) {
      if (!(METRIC_LABELS as readonly string[]).includes(label)) {
        throw new Error(`meter '${decl.name}' declares label '${label}', which is not allowed`);
      }
    }
    return { ...decl, labels: decl.labels.filter((l) => this.#allow.has(l)) };
  }

  /** The kept labels of a series, and its key. */
  #series(
    decl: InstrumentDeclaration,
    labels: Labels | undefined,
  ): [string, Record<string, string>] {
    const kept: Record<string, string> = {};
    let key = "";
    for (const name of decl.labels) {
      const value = labels?.[name];
      if (value === undefined) continue;
      kept[name] = String(value);
      key += `${name}\u0000${value}\u0001`;
    }
    return [key, kept];
  }

  /** Declares a counter. */
  counter(declaration: InstrumentDeclaration): Counter {
    const decl = this.#declare(declaration);
    const series = new Map<string, { labels: Record<string, string>; value: number }>();
    this.#instruments.set(decl.name, { decl, kind: "counter", series });
    const pointOf = (labels: Labels | undefined) => {
      const [key, kept] = this.#series(decl, labels);
      let point = series.get(key);
      if (!point) {
        point = { labels: kept, value: 0 };
        series.set(key, point);
      }
      return point;
    };
    return {
      add: (value, labels) => {
        if (value >= 0) pointOf(labels).value += value;
      },
      bind: (labels) => {
        const point = pointOf(labels);
        return (value) => {
          if (value >= 0) point.value += value;
        };
      },
    };
  }

  /**
   * Declares a meter read by `read` at each collection: a gauge, or with
   * `monotonic` a counter kept by someone else (a lane's dispatch count).
   */
  gauge(declaration: InstrumentDeclaration, read: GaugeReader, monotonic = false): void {
    const decl = this.#declare(declaration);
    this.#instruments.set(decl.name, { decl, kind: "gauge", read, monotonic });
  }

  /** Declares a histogram with the given bucket upper bounds. */
  histogram(
    declaration: InstrumentDeclaration,
    bounds: readonly number[] = MILLISECOND_BOUNDS,
  ): Histogram {
    const decl = this.#declare(declaration);
    const series = new Map<
      string,
      { labels: Record<string, string>; count: number; sum: number; buckets: number[] }
    >();
    this.#instruments.set(decl.name, { decl, kind: "histogram", bounds, series });
    return {
      record: (value, labels) => {
        if (!Number.isFinite(value)) return;
        const [key, kept] = this.#series(decl, labels);
        let point = series.get(key);
        if (!point) {
          point = { labels: kept, count: 0, sum: 0, buckets: new Array(bounds.length + 1).fill(0) };
          series.set(key, point);
        }
        point.count++;
        point.sum += value;
        let i = 0;
        while (i < bounds.length && value > bounds[i]) i++;
        point.buckets[i]++;
      },
    };
  }

  /**
   * Every instrument's current series. A gauge whose reader fails is left
   * out of this collection (telemetry never fails the caller).
   */
  async collect(): Promise<MetricData[]> {
    const out: MetricData[] = [];
    for (const instrument of this.#instruments.values()) {
      const { decl } = instrument;
      if (instrument.kind === "counter") {
        const points = [...instrument.series.values()].map((p) => ({ ...p }));
        out.push({ ...decl, kind: "counter", points });
      } else if (instrument.kind === "histogram") {
        const points = [...instrument.series.values()].map((p) => ({
          ...p,
          buckets: [...p.buckets],
        }));
        out.push({ ...decl, kind: "histogram", bounds: instrument.bounds, points });
      } else {
        try {
          // Series whose distinguishing labels were dropped add up.
          const points = new Map<string, { labels: Record<string, string>; value: number }>();
          for (const p of await instrument.read()) {
            const [key, labels] = this.#series(decl, p.labels as Labels);
            const point = points.get(key);
            if (point) point.value += p.value;
            else points.set(key, { labels, value: p.value });
          }
          out.push({
            ...decl,
            kind: instrument.monotonic ? "counter" : "gauge",
            points: [...points.values()],
          });
        } catch {
          // Left out this time; the next collection reads it again.
        }
      }
    }
    return out;
  }
}
