/**
 * OTLP/HTTP export with JSON bodies, off the hot path: ended spans go into
 * a bounded queue, written at once as request bytes (a full queue drops the
 * newest and counts it), a timer
 * sends them in batches, one request at a time, each with a deadline.
 * Meters are collected and sent on the same timer. A collector that is
 * down or slow costs the engine nothing but the dropped telemetry: no
 * caller ever waits on an export, and a failure is logged once until
 * exports work again.
 *
 * @module
 */
import type { Attributes } from "@opentelemetry/api";
import type { Logger } from "../../core/log.ts";
import { errorMessage } from "../../core/errors.ts";
import type { FinishedSpan } from "./tracer.ts";
import type { MetricRegistry } from "./metrics.ts";
import { logsRequest, metricsRequest, type Scope, tracesEnvelope } from "./otlp_json.ts";
import { SpanBatches } from "./span_batches.ts";
import type { ExportedLog, LogSink } from "./log_context.ts";
import { DeltaBaseline, type Temporality } from "./temporality.ts";
import { nowMs } from "./tracer.ts";

/** Options for {@link OtlpExporter}. */
export interface OtlpExporterOptions {
  /** Base URL; `/v1/traces` and `/v1/metrics` are appended. */
  readonly endpoint: string;
  readonly resource: Readonly<Attributes>;
  readonly scope: Scope;
  readonly logger: Logger;
  /** Meters to send; none when absent. */
  readonly metrics?: MetricRegistry;
  /** Spans held while waiting to be sent (default 2048). */
  readonly queueCapacity?: number;
  /** Spans per request (default 512). */
  readonly batchSize?: number;
  /** How often queued spans and the meters are sent, milliseconds (default 5000). */
  readonly intervalMs?: number;
  /** Deadline of one request, milliseconds (default 10000). */
  readonly timeoutMs?: number;
  /** Extra request headers (`OTEL_EXPORTER_OTLP_HEADERS`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How sums and histograms are sent (default cumulative). */
  readonly temporality?: Temporality;
}

/** What the exporter has done so far. */
export interface ExportStats {
  exportedSpans: number;
  droppedSpans: number;
  exportedLogs: number;
  droppedLogs: number;
  failedRequests: number;
}

/** Sends spans and meters to an OTLP/HTTP collector until stopped. */
export class OtlpExporter implements LogSink {
  readonly #o: OtlpExporterOptions;
  readonly #capacity: number;
  readonly #batchSize: number;
  readonly #batches: SpanBatches;
  /** Spans taken off the queue for sending and not sent yet: they still count against its room. */
  #sending = 0;
  #logs: ExportedLog[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #inFlight: Promise<void> | undefined;
  readonly #abort = new AbortController();
  #failing = false;
  readonly #startedMs = nowMs();
  /** With delta temporality: the totals of the last export taken, and when it was sent. */
  readonly #deltas?: DeltaBaseline;
  #deltasFromMs = this.#startedMs;
  /** Counts of what happened, for the exporter's own meters and tests. */
  readonly stats: ExportStats = {
    exportedSpans: 0,
    droppedSpans: 0,
    exportedLogs: 0,
    droppedLogs: 0,
    failedRequests: 0,
  };

  constructor(options: OtlpExporterOptions) {
    this.#o = options;
    this.#capacity = options.queueCapacity ?? 2_048;
    this.#batchSize = options.batchSize ?? 512;
    const [head, tail] = tracesEnvelope(options.resource, options.scope);
    this.#batches = new SpanBatches({ head, tail, batchSize: this.#batchSize });
    if (options.temporality === "delta") this.#deltas = new DeltaBaseline();
  }

  /**
   * Queues an ended span; drops it when the queue is full. Never blocks,
   * never throws. A full batch is sent at once rather than wait for the
   * timer (one request at a time: while one is out, spans queue up).
   */
  enqueue(span: FinishedSpan): void {
    if (this.#batches.size + this.#sending >= this.#capacity) {
      this.stats.droppedSpans++;
      return;
    }
    this.#batches.add(span);
    if (this.#batches.ready && !this.#inFlight && this.#timer !== undefined) {
      void this.#tick(false);
    }
  }

  /** Queues a log record for the next send; drops it when the queue is full. */
  enqueueLog(record: ExportedLog): void {
    if (this.#logs.length >= this.#capacity) this.stats.droppedLogs++;
    else this.#logs.push(record);
  }

  /** Starts the send timer. */
  start(): void {
    this.#timer ??= setInterval(() => void this.#tick(true), this.#o.intervalMs ?? 5_000);
  }

  /** Stops the timer, sends what is queued (all within one request deadline) and aborts the rest. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    // One deadline for the request in flight and the last one together: a collector that does
    // not answer cannot hold the engine's shutdown up for longer.
    const deadline = setTimeout(() => this.#abort.abort(), this.#o.timeoutMs ?? 10_000);
    try {
      await this.#inFlight;
      await this.#tick(true);
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Sends everything queued now and the meters; resolves when done (tests and shutdown). */
  flush(): Promise<void> {
    return this.#tick(true);
  }

  #tick(withMeters: boolean): Promise<void> {
    if (this.#inFlight) {
      return this.#inFlight.then(() => withMeters ? this.#tick(withMeters) : undefined);
    }
    this.#inFlight = this.#send(withMeters).finally(() => this.#inFlight = undefined);
    return this.#inFlight;
  }

  /** Sends the spans queued now, in batches; the meters too unless only a full batch was due. */
  async #send(withMeters: boolean): Promise<void> {
    // What is queued now is taken at once; spans ended meanwhile queue up anew.
    const due = this.#batches.take();
    this.#sending = due.reduce((n, batch) => n + batch.spans, 0);
    try {
      for (const batch of due) {
        if (await this.#post("/v1/traces", batch.body)) this.stats.exportedSpans += batch.spans;
        this.#sending -= batch.spans;
        this.#batches.release(batch);
      }
    } finally {
      this.#sending = 0;
    }
    if (withMeters && this.#logs.length > 0) {
      const logs = this.#logs.splice(0, this.#logs.length);
      const body = JSON.stringify(logsRequest(this.#o.resource, this.#o.scope, logs));
      if (await this.#post("/v1/logs", body)) this.stats.exportedLogs += logs.length;
    }
    if (withMeters && this.#o.metrics) await this.#sendMeters(this.#o.metrics);
  }

  async #sendMeters(registry: MetricRegistry): Promise<void> {
    const collected = await registry.collect();
    const now = nowMs();
    const deltas = this.#deltas?.since(collected);
    const body = metricsRequest(this.#o.resource, this.#o.scope, deltas?.metrics ?? collected, {
      startMs: deltas ? this.#deltasFromMs : this.#startedMs,
      nowMs: now,
      temporality: deltas ? "delta" : "cumulative",
    });
    if (await this.#post("/v1/metrics", JSON.stringify(body)) && deltas) {
      deltas.taken();
      this.#deltasFromMs = now;
    }
  }

  /** One request; true when the collector took it. Failures are logged on the change only. */
  async #post(path: string, body: string | Uint8Array<ArrayBuffer>): Promise<boolean> {
    const url = this.#o.endpoint.replace(/\/+$/, "") + path;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...this.#o.headers, "content-type": "application/json" },
        body,
        signal: AbortSignal.any([
          this.#abort.signal,
          AbortSignal.timeout(this.#o.timeoutMs ?? 10_000),
        ]),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      if (this.#failing) {
        this.#failing = false;
        this.#o.logger.info("telemetry export works again", { endpoint: this.#o.endpoint });
      }
      return true;
    } catch (error) {
      this.stats.failedRequests++;
      if (!this.#failing) {
        this.#failing = true;
        this.#o.logger.warn("telemetry export failed; dropping telemetry until it works again", {
          endpoint: this.#o.endpoint,
          error: errorMessage(error),
        });
      }
      return false;
    }
  }
}
