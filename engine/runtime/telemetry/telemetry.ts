/**
 * One engine's telemetry: the tracer and its OTLP exporter (only when an
 * endpoint is configured), the meters (when exported or scraped), and the
 * hooks the runtime calls. A hook finds the telemetry through the engine
 * database it works on ({@link telemetryOf}) or through the trace context,
 * so an engine without telemetry pays one lookup per hook and nothing else.
 *
 * Traces: each delivery is one `sutra.dispatch` span, continuing the
 * sender's trace when the message names one (`traceparent`), with the
 * stages as children. A step that parks the instance ends its trace there;
 * the delivery that resumes it starts a trace of its own and links to the
 * span that parked it (remembered by this process, so a resume served by
 * another replica or after a restart has no link, only the shared
 * `bpm.instance.id`).
 *
 * @module
 */
import {
  type Attributes,
  createContextKey,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { Config } from "../../core/config.ts";
import type { Logger } from "../../core/log.ts";
import { ENGINE_VERSION } from "../../core/version.ts";
import type { DeliveryOutcome, InboundDelivery } from "../../core/transport.ts";
import { createExecutor, type Executor, type InstanceStatus, step } from "../../executor/mod.ts";
import type { Database } from "../../persistence/mod.ts";
import type { Router } from "../http_router.ts";
import {
  METRICS_LABELS,
  METRICS_PROMETHEUS,
  METRICS_TEMPORALITY,
  OTLP_ENDPOINT,
  SERVICE_NAME,
  TELEMETRY_EXPORT_INTERVAL,
  TELEMETRY_QUEUE_CAPACITY,
} from "../settings.ts";
import { contexts, extractTraceContext, registerContextManager } from "./context.ts";
import { OtlpExporter } from "./exporter.ts";
import {
  type Counter,
  type Histogram,
  type Labels,
  type MetricLabel,
  MetricRegistry,
  parseLabelAllowlist,
} from "./metrics.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "./prometheus.ts";
import type { Temporality } from "./temporality.ts";
import { SutraTracer } from "./tracer.ts";
import type { LogExport } from "./log_context.ts";

/** What the meters read off the execution lanes. */
export interface LaneMeters {
  readonly count: number;
  /** Items held by the lane (running, off-lane and queued). */
  depth(lane: number): number;
  /** Items the lane has run since it was created. */
  dispatched(lane: number): number;
  /** The lane a key hashes to. */
  laneOf(key: string): number;
}

/** Options for {@link startTelemetry}. */
export interface TelemetryOptions {
  readonly config: Config;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly db: Database;
  readonly lanes: LaneMeters;
  /** Where `GET /sutra/metrics` is served when enabled. */
  readonly router: Router;
  /** This replica's id (the `service.instance.id` resource attribute). */
  readonly replicaId: string;
  /** The engine logger's export target: its records are exported too while telemetry runs. */
  readonly logs?: LogExport;
}

/** What {@link startTelemetry} leaves running. */
export interface StartedTelemetry {
  /** One sentence for the boot log: what is exported where. */
  readonly posture: string;
  /** The running telemetry; undefined when nothing is exported or served. */
  readonly telemetry?: Telemetry;
  /** Sends what is queued and stops. */
  stop(): Promise<void>;
}

const TELEMETRY = createContextKey("sutra.telemetry");
const DISPATCH_SPAN = createContextKey("sutra.dispatch.span");
/** Set in the context of background work ({@link Telemetry.trigger}): what started it. */
const TRIGGER = createContextKey("sutra.trigger");
const byDatabase = new WeakMap<Database, Telemetry>();
/** Parked segments remembered for the resume's link, per engine. */
const PARKED_LIMIT = 10_000;

/** The telemetry of the engine working on `db`, if it has any. */
export function telemetryOf(db: Database): Telemetry | undefined {
  return byDatabase.get(db);
}

/** The meters of one engine, by family. */
class Meters {
  readonly started: Series<[process: string, tenant: string]>;
  readonly completed: Series<[process: string, tenant: string]>;
  readonly failed: Counter;
  readonly terminated: Series<[process: string, tenant: string]>;
  readonly suspended: Series<[process: string, tenant: string]>;
  readonly resumed: Series<[process: string, tenant: string]>;
  readonly entered: Series<[process: string, node: string | undefined]>;
  readonly left: Series<[process: string, node: string | undefined]>;
  readonly flows: Series<[process: string]>;
  readonly parks: Series<[lane: number]>;
  readonly resumes: Series<[lane: number]>;
  readonly handoffs: Series<[lane: number]>;
  readonly bounces: Counter;
  readonly outboxAttempts: Counter;
  readonly outboxDeliveryLag: Histogram;

  constructor(registry: MetricRegistry, db: Database, lanes: LaneMeters) {
    const instance = (name: string, description: string) =>
      series(
        registry.counter({
          name: `sutra.instance.${name}`,
          description,
          labels: ["process", "tenant"],
        }),
        ["process", "tenant"],
      );
    this.started = instance("started", "Instances started (committed).");
    this.completed = instance("completed", "Instances that reached an end.");
    this.failed = registry.counter({
      name: "sutra.instance.failed",
      description: "Instances that failed, by failure code.",
      labels: ["process", "tenant", "code"],
    });
    this.terminated = instance("terminated", "Instances terminated (a terminate end, a cancel).");
    this.suspended = instance("suspended", "Steps that left an instance parked on a wait.");
    this.resumed = instance("resumed", "Steps that advanced a parked instance.");
    const token = (name: string, description: string) =>
      series(
        registry.counter({ name: `sutra.token.${name}`, description, labels: ["process", "node"] }),
        ["process", "node"],
      );
    this.entered = token("entered", "Tokens that entered a node (counted as steps run).");
    this.left = token("left", "Tokens that left a node (counted as steps run).");
    this.flows = series(
      registry.counter({
        name: "sutra.token.flows",
        description: "Sequence flows taken (counted as steps run).",
        labels: ["process"],
      }),
      ["process"],
    );
    const shard = (name: string, description: string) =>
      registry.counter({ name: `sutra.engine.shard.${name}`, description, labels: ["lane"] });
    this.parks = series(
      shard("parks", "Steps on the lane that left their instance parked."),
      ["lane"],
    );
    this.resumes = series(
      shard("resumes", "Steps on the lane that advanced a parked instance."),
      ["lane"],
    );
    this.handoffs = series(
      shard(
        "handoffs",
        "Relays resolved on the caller's task and handed to their instance's lane.",
      ),
      ["lane"],
    );
    this.bounces = registry.counter({
      name: "sutra.engine.shard.claim-bounces",
      description: "Work refused because the instance's claim was held (relay or timer).",
      labels: ["lane", "kind"],
    });
    const perLane = (read: (lane: number) => number) => () =>
      Array.from({ length: lanes.count }, (_, lane) => ({
        labels: { lane: String(lane) },
        value: read(lane),
      }));
    registry.gauge({
      name: "sutra.engine.shard.queue-depth",
      description: "Items a lane holds: running, off-lane and queued.",
      labels: ["lane"],
    }, perLane((lane) => lanes.depth(lane)));
    registry.gauge(
      {
        name: "sutra.engine.shard.dispatches",
        description: "Items a lane has run.",
        labels: ["lane"],
      },
      perLane((lane) => lanes.dispatched(lane)),
      true,
    );
    this.outboxAttempts = registry.counter({
      name: "sutra.outbox.attempts",
      description: "Outbox delivery attempts, by destination scheme and outcome.",
      labels: ["scheme", "outcome"],
    });
    this.outboxDeliveryLag = registry.histogram({
      name: "sutra.outbox.delivery-lag",
      description: "From an outbox row's commit to its delivery.",
      unit: "ms",
      labels: ["scheme"],
    });
    registry.gauge({
      name: "sutra.outbox.pending",
      description: "Outbox rows waiting to be delivered (poisoned rows not included).",
      labels: [],
    }, async () => {
      const { rows } = await db.query<{ n: number }>(
        "select count(*)::int as n from outbox where poisoned_at is null",
      );
      return [{ labels: {}, value: rows[0].n }];
    });
    registry.gauge({
      name: "sutra.outbox.lag",
      description: "Age of the oldest outbox row not yet delivered (0 when none).",
      unit: "ms",
      labels: [],
    }, async () => {
      const { rows } = await db.query<{ ms: number | null }>(
        `select (extract(epoch from now() - min(created_at)) * 1000)::float8 as ms
           from outbox where poisoned_at is null`,
      );
      return [{ labels: {}, value: Math.max(0, Math.round(rows[0].ms ?? 0)) }];
    });
    registry.gauge({
      name: "sutra.task.queue-depth",
      description: "External tasks waiting for a worker to fetch and lock them, by destination.",
      labels: ["destination"],
    }, async () => {
      const { rows } = await db.query<{ destination: string; n: number }>(
        `select destination, count(*)::int as n from external_tasks
          where not terminal and (lock_owner is null or lock_expires_at < now())
          group by destination order by destination`,
      );
      return rows.map((r) => ({ labels: { destination: r.destination }, value: r.n }));
    });
    registry.gauge({
      name: "sutra.task.locked",
      description: "External tasks locked by a worker now, by destination.",
      labels: ["destination"],
    }, async () => {
      const { rows } = await db.query<{ destination: string; n: number }>(
        `select destination, count(*)::int as n from external_tasks
          where not terminal and lock_owner is not null and lock_expires_at >= now()
          group by destination order by destination`,
      );
      return rows.map((r) => ({ labels: { destination: r.destination }, value: r.n }));
    });
  }
}

/** What started work that no message brought, for {@link Telemetry.trigger}. */
export interface Trigger {
  /** `sutra.trigger`: `timer` (a wait's fire), `schedule` (a timer start's), `poison` (a poisoned request's wake). */
  readonly trigger: "timer" | "schedule" | "poison";
  /** The instance worked on (a schedule's new one). */
  readonly instanceId: string;
  /** More attributes of the `sutra.dispatch` span. */
  readonly attributes?: Attributes;
}

/** The instance a committed step ran on, as the hooks need it. */
export interface CommittedStep {
  readonly tenant: string;
  readonly instanceId: string;
  readonly processId: string;
  /** Set for a resumed instance (its claim owner); absent for a new one. */
  readonly owner?: string;
  readonly status: InstanceStatus;
  readonly failureCode?: string;
}

/** One engine's tracer and meters. */
export class Telemetry {
  /** Present when spans are exported. */
  readonly tracer?: SutraTracer;
  readonly registry: MetricRegistry;
  readonly meters: Meters;
  /** Steps through this executor feed the token meters. */
  readonly executor: Executor;
  readonly exporter?: OtlpExporter;
  readonly #lanes: LaneMeters;
  readonly #parked = new Map<string, SpanContext>();

  constructor(
    o: { registry: MetricRegistry; db: Database; lanes: LaneMeters; exporter?: OtlpExporter },
  ) {
    this.registry = o.registry;
    this.meters = new Meters(o.registry, o.db, o.lanes);
    this.exporter = o.exporter;
    this.#lanes = o.lanes;
    if (o.exporter) {
      const exporter = o.exporter;
      this.tracer = new SutraTracer((span) => exporter.enqueue(span));
    }
    const m = this.meters;
    this.executor = createExecutor({
      listeners: [{
        onNodeEntered: (e) => m.entered.at(e.process, e.node)(1),
        onNodeLeft: (e) => m.left.at(e.process, e.node)(1),
        onFlowTaken: (e) => m.flows.at(e.process)(1),
      }],
    });
  }

  /** Runs one delivery inside its `sutra.dispatch` span (continuing the sender's trace). */
  dispatch<T extends DeliveryOutcome>(
    delivery: InboundDelivery,
    run: () => Promise<T>,
  ): Promise<T> {
    const base = contexts.active().setValue(TELEMETRY, this);
    if (!this.tracer) return contexts.with(base, run);
    const remote = extractTraceContext(delivery.headers);
    const parent = remote ? trace.setSpanContext(base, remote) : base;
    const span = this.tracer.startSpan("sutra.dispatch", {
      kind: SpanKind.CONSUMER,
      attributes: { "sutra.trigger": "message", "sutra.channel": delivery.channel },
    }, parent);
    const ctx = trace.setSpan(parent, span).setValue(DISPATCH_SPAN, span);
    return ended(span, () => contexts.with(ctx, run), describeOutcome);
  }

  /**
   * Runs work on an instance that no message brought (a timer's fire, say)
   * inside a `sutra.dispatch` span of a trace of its own, as a delivery runs:
   * the stages it runs are children, and a resume links to the span that
   * parked the instance. `run` answers what came of it (`sutra.outcome`).
   */
  trigger<T extends string>(what: Trigger, run: () => Promise<T>): Promise<T> {
    const base = contexts.active().setValue(TELEMETRY, this).setValue(TRIGGER, what.trigger);
    if (!this.tracer) return contexts.with(base, run);
    const span = this.tracer.startSpan("sutra.dispatch", {
      root: true,
      attributes: {
        "sutra.trigger": what.trigger,
        "bpm.instance.id": what.instanceId,
        ...what.attributes,
      },
    }, base);
    const ctx = trace.setSpan(base, span).setValue(DISPATCH_SPAN, span);
    return ended(
      span,
      () => contexts.with(ctx, run),
      (span, outcome) => span.setAttribute("sutra.outcome", outcome),
    );
  }

  /**
   * After a step committed: instance and lane meters, and the wait/resume
   * link. A step under a claim that is not a lane's (an administrative
   * cancel) resumes nothing and counts on no lane.
   */
  committed(step: CommittedStep): void {
    const m = this.meters;
    const onLane = step.owner === undefined || /\/lane-\d+$/.test(step.owner);
    if (step.owner === undefined) m.started.at(step.processId, step.tenant)(1);
    else if (onLane) {
      m.resumed.at(step.processId, step.tenant)(1);
      m.resumes.at(this.#lanes.laneOf(step.instanceId))(1);
    }
    switch (step.status) {
      case "COMPLETED":
        m.completed.at(step.processId, step.tenant)(1);
        break;
      case "FAILED":
        m.failed.add(1, {
          process: step.processId,
          tenant: step.tenant,
          code: step.failureCode ?? "",
        });
        break;
      case "TERMINATED":
        m.terminated.at(step.processId, step.tenant)(1);
        break;
      case "WAITING":
        m.suspended.at(step.processId, step.tenant)(1);
        if (onLane) m.parks.at(this.#lanes.laneOf(step.instanceId))(1);
    }
    if (this.tracer) this.#linkSegments(step);
  }

  #linkSegments(step: CommittedStep): void {
    const ctx = contexts.active();
    const root = ctx.getValue(DISPATCH_SPAN) as Span | undefined;
    const key = `${step.tenant}\u0000${step.instanceId}`;
    const attributes: Attributes = {
      "bpm.instance.id": step.instanceId,
      "bpm.process.id": step.processId,
    };
    root?.setAttributes(attributes);
    trace.getSpan(ctx)?.setAttributes(attributes);
    const earlier = this.#parked.get(key);
    if (earlier) {
      this.#parked.delete(key);
      root?.addLink({ context: earlier, attributes: { "sutra.link": "resumes" } });
    }
    const here = trace.getSpanContext(ctx);
    if (step.status === "WAITING" && here) {
      this.#parked.set(key, here);
      if (this.#parked.size > PARKED_LIMIT) {
        this.#parked.delete(this.#parked.keys().next().value!);
      }
    }
  }

  /** A relay handed from the caller's task to its instance's lane. */
  handoff(lane: number): void {
    this.meters.handoffs.at(lane)(1);
  }

  /**
   * Work bounced by a held claim; `owner` is the lane-scoped claim owner
   * that tried. Inside a delivery it is a relay's; inside a trigger
   * ({@link trigger}) or outside both, a timer's (or other background work
   * on the lanes).
   */
  claimBounced(owner: string): void {
    const lane = /\/lane-(\d+)$/.exec(owner)?.[1];
    if (lane === undefined) return;
    const ctx = contexts.active();
    const relay = ctx.getValue(TELEMETRY) === this && ctx.getValue(TRIGGER) === undefined;
    this.meters.bounces.add(1, { lane, kind: relay ? "relay" : "timer" });
  }

  /** Serves the meters at `GET /sutra/metrics`. */
  serveMetrics(router: Router): void {
    router.add(
      "GET",
      "/sutra/metrics",
      async () =>
        new Response(renderPrometheus(await this.registry.collect()), {
          headers: { "content-type": PROMETHEUS_CONTENT_TYPE },
        }),
    );
  }
}

/** One counter's series by their label values, each bound on first use. */
interface Series<V extends readonly (string | number | undefined)[]> {
  /** The series of `values` (in the order of the label names it was made with). */
  at(...values: V): (value: number) => void;
}

/**
 * `counter`'s series by the values of `names`: the hot paths count a few
 * series very often, and a bound one skips building its key every time.
 */
function series<V extends readonly (string | number | undefined)[]>(
  counter: Counter,
  names: { readonly [I in keyof V]: MetricLabel },
): Series<V> {
  const root = new Map<unknown, unknown>();
  return {
    at(...values) {
      let level = root;
      for (let i = 0; i < values.length - 1; i++) {
        let next = level.get(values[i]) as Map<unknown, unknown> | undefined;
        if (!next) level.set(values[i], next = new Map());
        level = next;
      }
      const last = values[values.length - 1];
      let add = level.get(last) as ((value: number) => void) | undefined;
      if (!add) {
        const labels: Labels = {};
        names.forEach((name, i) => labels[name] = values[i]);
        level.set(last, add = counter.bind(labels));
      }
      return add;
    },
  };
}

function describeOutcome(span: Span, outcome: DeliveryOutcome): void {
  span.setAttribute("sutra.outcome", outcome.kind);
  if (outcome.kind === "refused") {
    span.setAttribute("sutra.refusal", outcome.refusal);
    const code = outcome.diagnostics[0]?.code;
    if (code) span.setAttribute("sutra.code", code);
    if (outcome.refusal === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  } else if (outcome.kind === "settled" && outcome.instances.length > 0) {
    span.setAttribute("bpm.instance.id", outcome.instances[0].instanceId);
  }
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Runs one delivery in its `sutra.dispatch` span when the engine on `db` has telemetry. */
export function traceDispatch<T extends DeliveryOutcome>(
  db: Database,
  delivery: InboundDelivery,
  run: () => Promise<T>,
): Promise<T> {
  const telemetry = byDatabase.get(db);
  return telemetry ? telemetry.dispatch(delivery, run) : run();
}

/**
 * Runs work that no message brought in its own `sutra.dispatch` span when
 * the engine on `db` has telemetry ({@link Telemetry.trigger}).
 */
export function traceTrigger<T extends string>(
  db: Database,
  what: Trigger,
  run: () => Promise<T>,
): Promise<T> {
  const telemetry = byDatabase.get(db);
  return telemetry ? telemetry.trigger(what, run) : run();
}

/** How steps run on `db`'s engine: through its metered executor when it has telemetry. */
export function stepOf(db: Database): Executor["step"] {
  return byDatabase.get(db)?.executor.step ?? step;
}

/**
 * Runs `run` in a child span of the current one, when the current context
 * belongs to a traced engine; otherwise just runs it. A `leaf` stage (one
 * that starts no spans and stamps nothing) keeps running in its parent's
 * context, which spares entering one: a log record it writes names the
 * parent span.
 */
export function traced<T>(
  name: string,
  attributes: Attributes,
  run: () => Promise<T> | T,
  options: { readonly leaf?: boolean } = {},
): Promise<T> {
  const ctx = contexts.active();
  const tracer = (ctx.getValue(TELEMETRY) as Telemetry | undefined)?.tracer;
  // Untraced, the stage costs no promise of its own.
  if (!tracer) return settled(run);
  const span = tracer.startSpan(name, { attributes }, ctx);
  // Otherwise `run` starts inside the span's context, and its continuations keep it.
  return ended(span, options.leaf ? run : () => contexts.with(trace.setSpan(ctx, span), run));
}

/** What `run` answers, as a promise; a throw becomes a rejection. */
function settled<T>(run: () => Promise<T> | T): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Runs `start` and ends `span` when what it started settles, marking a failure on it. */
async function ended<T>(
  span: Span,
  start: () => Promise<T> | T,
  describe?: (span: Span, value: T) => void,
): Promise<T> {
  try {
    const value = await start();
    describe?.(span, value);
    return value;
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The endpoint export goes to, or undefined; a malformed one is reported and ignored. */
function endpointOf(o: TelemetryOptions): string | undefined {
  const raw = (o.config.get(OTLP_ENDPOINT) ?? o.env["OTEL_EXPORTER_OTLP_ENDPOINT"])?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return raw;
  } catch {
    // Reported below.
  }
  o.logger.warn(`telemetry export off: the OTLP endpoint '${raw}' is not an http(s) URL`, {
    key: OTLP_ENDPOINT.key,
  });
  return undefined;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs, comma-separated, values URL-encoded. */
function headersOf(env: TelemetryOptions["env"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (env["OTEL_EXPORTER_OTLP_HEADERS"] ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    try {
      out[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // A value that is not URL-encoded is skipped rather than stop the engine.
    }
  }
  return out;
}

/**
 * Starts an engine's telemetry as configured: nothing at all without an
 * OTLP endpoint and with `/sutra/metrics` off.
 */
export function startTelemetry(o: TelemetryOptions): StartedTelemetry {
  const endpoint = endpointOf(o);
  const prometheus = o.config.require(METRICS_PROMETHEUS);
  const metricsNote = prometheus ? "; meters served at GET /sutra/metrics" : "";
  if (!endpoint && !prometheus) {
    return {
      posture: "telemetry export off (no OTLP endpoint configured) — JSON stdout logs only",
      stop: () => Promise.resolve(),
    };
  }
  registerContextManager();
  const allow = parseLabelAllowlist(o.config.require(METRICS_LABELS));
  // The key's own validation has refused anything else.
  const registry = new MetricRegistry(typeof allow === "string" ? undefined : allow);
  const exporter = endpoint
    ? new OtlpExporter({
      endpoint,
      resource: {
        "service.name": o.config.require(SERVICE_NAME),
        "service.version": ENGINE_VERSION,
        "service.instance.id": o.replicaId,
      },
      scope: { name: "sutra-engine", version: ENGINE_VERSION },
      logger: o.logger,
      metrics: registry,
      intervalMs: o.config.require(TELEMETRY_EXPORT_INTERVAL),
      queueCapacity: o.config.require(TELEMETRY_QUEUE_CAPACITY),
      headers: headersOf(o.env),
      // The key's values are the temporalities.
      temporality: o.config.require(METRICS_TEMPORALITY) as Temporality,
    })
    : undefined;
  const telemetry = new Telemetry({ registry, db: o.db, lanes: o.lanes, exporter });
  if (exporter) {
    const stat = (name: string, description: string, read: () => number) =>
      registry.gauge(
        { name, description, labels: [] },
        () => [{ labels: {}, value: read() }],
        true,
      );
    stat(
      "sutra.telemetry.spans.exported",
      "Spans the collector took.",
      () => exporter.stats.exportedSpans,
    );
    stat(
      "sutra.telemetry.spans.dropped",
      "Spans dropped because the export queue was full.",
      () => exporter.stats.droppedSpans,
    );
    stat(
      "sutra.telemetry.export.failures",
      "Export requests that failed.",
      () => exporter.stats.failedRequests,
    );
    stat(
      "sutra.telemetry.logs.dropped",
      "Log records dropped because the export queue was full.",
      () => exporter.stats.droppedLogs,
    );
  }
  byDatabase.set(o.db, telemetry);
  if (prometheus) telemetry.serveMetrics(o.router);
  exporter?.start();
  if (exporter && o.logs) o.logs.sink = exporter;
  return {
    posture: endpoint
      ? `telemetry exported over OTLP/HTTP to ${endpoint} (traces, meters and logs)${metricsNote}`
      : `telemetry export off (no OTLP endpoint configured)${metricsNote}`,
    telemetry,
    stop: async () => {
      byDatabase.delete(o.db);
      if (o.logs && o.logs.sink === exporter) o.logs.sink = undefined;
      await exporter?.stop();
    },
  };
}
