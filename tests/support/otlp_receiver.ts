/**
 * A local OTLP/HTTP receiver for tests: a loopback server taking JSON
 * `ExportTraceServiceRequest`, `ExportMetricsServiceRequest` and
 * `ExportLogsServiceRequest` bodies at `/v1/traces`, `/v1/metrics` and
 * `/v1/logs`, keeping every request it was sent and flattening them into
 * spans, metric points and log records to assert on. A body that
 * is not OTLP/JSON is answered 400 and remembered as a protocol error.
 *
 * @module
 */

/** An OTLP attribute value. */
type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] };
};

/** A received span, attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, unknown>;
  readonly links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  readonly status: { code: number; message?: string };
  /** The resource's attributes. */
  readonly resource: Record<string, unknown>;
}

/** A received metric data point. */
export interface ReceivedPoint {
  readonly name: string;
  readonly type: "sum" | "gauge" | "histogram";
  readonly attributes: Record<string, string>;
  /** The value of a sum or gauge; a histogram's count. */
  readonly value: number;
}

/** A received log record. */
export interface ReceivedLog {
  readonly severityText: string;
  readonly severityNumber: number;
  readonly body: string;
  readonly attributes: Record<string, unknown>;
  readonly traceId?: string;
  readonly spanId?: string;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return value.arrayValue.values.map(plain);
  throw new Error(`not an OTLP AnyValue: ${JSON.stringify(value)}`);
}

function attributesOf(
  list: { key: string; value: AnyValue }[] | undefined,
): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const NANOS = /^\d+$/;

// deno-lint-ignore no-explicit-any
type Json = any;

function spansOf(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        if (!HEX32.test(s.traceId) || !HEX16.test(s.spanId)) throw new Error("bad span ids");
        if (s.parentSpanId !== undefined && !HEX16.test(s.parentSpanId)) {
          throw new Error("bad parent span id");
        }
        if (!NANOS.test(s.startTimeUnixNano) || !NANOS.test(s.endTimeUnixNano)) {
          throw new Error("times must be decimal nanosecond strings");
        }
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l: Json) => ({
            traceId: l.traceId,
            spanId: l.spanId,
            attributes: attributesOf(l.attributes),
          })),
          status: s.status ?? { code: 0 },
          resource,
        });
      }
    }
  }
  return out;
}

function logsOf(body: Json): ReceivedLog[] {
  const out: ReceivedLog[] = [];
  for (const rl of body.resourceLogs) {
    for (const sl of rl.scopeLogs) {
      for (const r of sl.logRecords) {
        if (!NANOS.test(r.timeUnixNano)) throw new Error("log time must be decimal nanoseconds");
        if (r.traceId !== undefined && !HEX32.test(r.traceId)) throw new Error("bad log trace id");
        out.push({
          severityText: r.severityText,
          severityNumber: r.severityNumber,
          body: String(plain(r.body)),
          attributes: attributesOf(r.attributes),
          ...(r.traceId ? { traceId: r.traceId, spanId: r.spanId } : {}),
        });
      }
    }
  }
  return out;
}

function pointsOf(body: Json): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of body.resourceMetrics) {
    for (const sm of rm.scopeMetrics) {
      for (const m of sm.metrics) {
        const type = m.sum ? "sum" : m.gauge ? "gauge" : m.histogram ? "histogram" : undefined;
        if (!type) throw new Error(`metric ${m.name} has no sum, gauge or histogram`);
        for (const p of m[type].dataPoints) {
          const raw = type === "histogram" ? p.count : p.asInt ?? p.asDouble;
          if (raw === undefined) throw new Error(`metric ${m.name} has a point without a value`);
          out.push({
            name: m.name,
            type,
            attributes: attributesOf(p.attributes) as Record<string, string>,
            value: Number(raw),
          });
        }
      }
    }
  }
  return out;
}

/** A running receiver. */
export interface OtlpReceiver extends AsyncDisposable {
  /** Base URL to configure as the OTLP endpoint. */
  readonly url: string;
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** The points of the latest metrics request (cumulative meters: the latest is the total). */
  latestPoints(): ReceivedPoint[];
  /** Every log record received so far. */
  logs(): ReceivedLog[];
  /** How many requests arrived at each path. */
  readonly requests: Map<string, number>;
  /** Bodies that were not OTLP/JSON, with why. */
  readonly protocolErrors: string[];
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const logs: ReceivedLog[] = [];
  let latest: ReceivedPoint[] = [];
  const requests = new Map<string, number>();
  const protocolErrors: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const text = await req.text();
    if (req.method !== "POST" || !req.headers.get("content-type")?.startsWith("application/json")) {
      protocolErrors.push(`${req.method} ${path} with ${req.headers.get("content-type")}`);
      return new Response(null, { status: 415 });
    }
    try {
      const body = JSON.parse(text);
      if (path === "/v1/traces") spans.push(...spansOf(body));
      else if (path === "/v1/metrics") latest = pointsOf(body);
      else if (path === "/v1/logs") logs.push(...logsOf(body));
      else return new Response(null, { status: 404 });
      return Response.json({});
    } catch (error) {
      protocolErrors.push(`${path}: ${error instanceof Error ? error.message : error}`);
      return new Response(null, { status: 400 });
    }
  });
  const close = () => server.shutdown();
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    spans: () => [...spans],
    latestPoints: () => [...latest],
    logs: () => [...logs],
    requests,
    protocolErrors,
    close,
    [Symbol.asyncDispose]: close,
  };
}
