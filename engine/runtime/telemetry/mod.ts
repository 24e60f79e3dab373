/**
 * The engine's OpenTelemetry: traces and meters exported over OTLP/HTTP
 * when an endpoint is configured, meters scrapeable at `GET /sutra/metrics`
 * when enabled, trace ids on log records, and the hooks the runtime calls.
 *
 * @module
 */
export {
  type CommittedStep,
  type LaneMeters,
  type StartedTelemetry,
  startTelemetry,
  stepOf,
  Telemetry,
  telemetryOf,
  type TelemetryOptions,
  traced,
  traceDispatch,
  traceTrigger,
  type Trigger,
} from "./telemetry.ts";
export { stampOutboxRow, stampTraceparent, traceOutbound } from "./outbound.ts";
export { LogExport, withTraceIds } from "./log_context.ts";
export { extractTraceContext, formatTraceparent, parseTraceparent } from "./context.ts";
