/**
 * The audit trail beyond the engine database: the masked view of an
 * instance's variables every surface shows, the JSONL sink with per-tenant
 * directories and rotation, the routing of each process's events by its
 * `q:audit`, and the offline replay `sutra audit-replay` prints.
 *
 * @module
 */
export {
  type Observed,
  observedVariables,
  type ObserveOptions,
  protectedVariables,
  type VariableProtection,
} from "./observed.ts";
export { type AuditRecord, auditRecords, type CommittedStep, parseAuditRecord } from "./record.ts";
export { JsonlAuditSink, type JsonlSinkOptions, pathSegment } from "./jsonl_sink.ts";
export { type AuditRoute, AuditSinks, type AuditSinksOptions } from "./sinks.ts";
export { openProtection, type Protection, type ProtectionOptions } from "./protection.ts";
export {
  parseUntil,
  type Replay,
  replayInstance,
  type ReplayOptions,
  type ReplayUntil,
} from "./replay.ts";
