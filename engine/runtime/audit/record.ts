/**
 * One audit record as the file sinks write it: a committed step's audit
 * event with the instance it belongs to. One JSON object per line, keys in
 * a fixed order, so two sinks given the same step write the same bytes.
 *
 * ```json
 * {"tenant":"acme","instanceId":"i-1","processId":"pay","deploymentId":"…","seq":1,
 *  "at":"2026-12-02T00:00:00.000Z","type":"instance.started"}
 * ```
 *
 * At `q:audit capture="full"` the lifecycle events (started, suspended,
 * resumed, completed, failed, terminated) also carry `variables`: the root
 * variables as the masked view shows them (see `observed.ts`), never the
 * real values of anything sensitive.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Redactor } from "../../core/redactor.ts";
import type { Registry } from "../../core/registry.ts";
import type { AuditEvent, InstanceState } from "../../executor/mod.ts";
import { observedVariables } from "./observed.ts";

/** One line of a JSONL audit file. */
export interface AuditRecord {
  readonly tenant: string;
  readonly instanceId: string;
  readonly processId: string;
  readonly deploymentId: string;
  readonly seq: number;
  /** ISO-8601 UTC instant of the step. */
  readonly at: string;
  readonly type: string;
  readonly node?: string;
  readonly flow?: string;
  readonly code?: string;
  /** At capture `full`, on lifecycle events: the masked root variables. */
  readonly variables?: Readonly<Record<string, string>>;
}

/** A committed step, as the audit sinks are told of it. */
export interface CommittedStep {
  readonly tenant: string;
  readonly instanceId: string;
  readonly deploymentId: string;
  readonly processId: string;
  readonly plan: ExecutionPlan;
  /** The state the step committed. */
  readonly state: InstanceState;
  readonly events: readonly AuditEvent[];
}

const LIFECYCLE = /^instance\./;

/** The records of a committed step, variables masked. */
export function auditRecords(
  step: CommittedStep,
  options: { readonly registry?: Registry<Redactor> } = {},
): AuditRecord[] {
  const capture = step.plan.processById.get(step.processId)?.audit?.capture;
  let variables: Record<string, string> | undefined;
  return step.events.map((e) => {
    const record: { -readonly [K in keyof AuditRecord]: AuditRecord[K] } = {
      tenant: step.tenant,
      instanceId: step.instanceId,
      processId: step.processId,
      deploymentId: step.deploymentId,
      seq: e.seq,
      at: new Date(e.at).toISOString(),
      type: e.type,
    };
    if (e.node !== undefined) record.node = e.node;
    if (e.flow !== undefined) record.flow = e.flow;
    if (e.code !== undefined) record.code = e.code;
    if (capture === "full" && LIFECYCLE.test(e.type)) {
      variables ??= observedVariables(step.plan, step.state, options).variables;
      record.variables = variables;
    }
    return record;
  });
}

/** Parses one JSONL line into a record; undefined when it is not one. */
export function parseAuditRecord(line: string): AuditRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = value as Partial<AuditRecord> | null;
  if (
    r === null || typeof r !== "object" || typeof r.instanceId !== "string" ||
    typeof r.seq !== "number" || typeof r.type !== "string" || typeof r.at !== "string" ||
    typeof r.tenant !== "string"
  ) return undefined;
  return r as AuditRecord;
}
