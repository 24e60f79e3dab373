/**
 * The Prometheus text exposition format (version 0.0.4) of collected
 * meters: dots and dashes in names become underscores, counters gain
 * `_total`, histograms expand to cumulative `_bucket{le=…}`, `_sum` and
 * `_count`.
 *
 * @module
 */
import type { MetricData } from "./metrics.ts";

/** The content type of the exposition. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A meter name as a Prometheus metric name. */
export function prometheusName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_:]/g, "_");
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function labelText(labels: Readonly<Record<string, string>>, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

function number(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return Number.isNaN(value) ? "NaN" : String(value);
}

/** Renders collected meters as one exposition document. */
export function renderPrometheus(metrics: readonly MetricData[]): string {
  const lines: string[] = [];
  for (const metric of metrics) {
    const base = prometheusName(metric.name);
    const name = metric.kind === "counter" ? `${base}_total` : base;
    lines.push(`# HELP ${name} ${escapeHelp(metric.description)}`);
    lines.push(`# TYPE ${name} ${metric.kind}`);
    if (metric.kind === "histogram") {
      for (const point of metric.points) {
        let cumulative = 0;
        metric.bounds.forEach((bound, i) => {
          cumulative += point.buckets[i];
          lines.push(
            `${base}_bucket${labelText(point.labels, ["le", number(bound)])} ${cumulative}`,
          );
        });
        lines.push(`${base}_bucket${labelText(point.labels, ["le", "+Inf"])} ${point.count}`);
        lines.push(`${base}_sum${labelText(point.labels)} ${number(point.sum)}`);
        lines.push(`${base}_count${labelText(point.labels)} ${point.count}`);
      }
    } else {
      for (const point of metric.points) {
        lines.push(`${name}${labelText(point.labels)} ${number(point.value)}`);
      }
    }
  }
  return lines.join("\n") + "\n";
}
