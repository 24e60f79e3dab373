/**
 * Delta temporality for OTLP metric export. The registry keeps running
 * totals; a collector that wants deltas (`sutra.telemetry.metrics.temporality
 * = delta`) gets, for each counter and histogram series, what was added since
 * the last export it took. A series that did not change is left out of the
 * export, and an export the collector did not take moves nothing on: the
 * next one covers both intervals. Gauges are values, not sums, and pass
 * through as they are.
 *
 * @module
 */
import type { HistogramPoint, MetricData, Point } from "./metrics.ts";

/** How exported sums and histograms count: since the engine started, or since the last export. */
export type Temporality = "cumulative" | "delta";

/** The temporalities, as the setting spells them. */
export const TEMPORALITIES: readonly Temporality[] = ["cumulative", "delta"];

/** One series' totals at the last export the collector took. */
type Totals = number | {
  readonly count: number;
  readonly sum: number;
  readonly buckets: readonly number[];
};

/** Collected meters as deltas, and the step that makes them the new baseline. */
export interface Deltas {
  readonly metrics: MetricData[];
  /** Call once the collector took the export. */
  taken(): void;
}

/** The totals each export is measured against. */
export class DeltaBaseline {
  #totals = new Map<string, Totals>();

  /** `collected` (running totals) as what was added since the last export taken. */
  since(collected: readonly MetricData[]): Deltas {
    const next = new Map<string, Totals>();
    const metrics: MetricData[] = [];
    for (const m of collected) {
      if (m.kind === "histogram") {
        const points: HistogramPoint[] = [];
        for (const p of m.points) {
          const key = seriesKey(m.name, p.labels);
          next.set(key, { count: p.count, sum: p.sum, buckets: p.buckets });
          const before = this.#totals.get(key);
          const delta = typeof before === "object" && before.count <= p.count
            ? {
              labels: p.labels,
              count: p.count - before.count,
              sum: p.sum - before.sum,
              buckets: p.buckets.map((n, i) => n - (before.buckets[i] ?? 0)),
            }
            : p;
          if (delta.count !== 0) points.push(delta);
        }
        if (points.length > 0) metrics.push({ ...m, points });
      } else if (m.kind === "gauge") {
        metrics.push(m);
      } else {
        const points: Point[] = [];
        for (const p of m.points) {
          const key = seriesKey(m.name, p.labels);
          next.set(key, p.value);
          const before = this.#totals.get(key);
          // A total below the last one was reset (a merged series lost a part): all of it is new.
          const added = typeof before === "number" && before <= p.value
            ? p.value - before
            : p.value;
          if (added !== 0) points.push({ labels: p.labels, value: added });
        }
        if (points.length > 0) metrics.push({ ...m, points });
      }
    }
    return { metrics, taken: () => this.#totals = next };
  }
}

function seriesKey(name: string, labels: Readonly<Record<string, string>>): string {
  return `${name}\u0000${JSON.stringify(labels)}`;
}
