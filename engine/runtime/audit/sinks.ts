/**
 * Where a committed step's audit events go. Two sinks exist:
 *
 * - `sql`: the `audit_events` table of the engine database, written in the
 *   step's own transaction (`sutra.audit.sql`);
 * - `jsonl`: files under `sutra.audit.jsonl.dir` ({@link JsonlAuditSink}),
 *   written right after the commit.
 *
 * A process without `q:audit sink` goes to every sink the engine has
 * enabled. One that names a sink goes to that sink only, its `target` (for
 * `jsonl`, a sub-directory of the tenant's) applied; naming a sink this
 * engine does not have enabled is a `SUTRA.AUDIT.SINK_UNKNOWN` warning,
 * logged once per process, and its events go to the enabled sinks instead:
 * an audit trail is never silently dropped for a typo.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Logger } from "../../core/log.ts";
import type { Redactor } from "../../core/redactor.ts";
import type { Registry } from "../../core/registry.ts";
import { JsonlAuditSink } from "./jsonl_sink.ts";
import { auditRecords, type CommittedStep } from "./record.ts";

/** The sinks a process's events go to. */
export interface AuditRoute {
  readonly sql: boolean;
  readonly jsonl: boolean;
  /** The process's `q:audit target`. */
  readonly target?: string;
}

/** Options for {@link AuditSinks}. */
export interface AuditSinksOptions {
  /** `sutra.audit.sql`. */
  readonly sql: boolean;
  /** The JSONL sink, when `sutra.audit.jsonl.dir` is set. */
  readonly jsonl?: JsonlAuditSink;
  readonly logger?: Logger;
  /** Where redactors are looked up for `capture="full"` variables (process-wide by default). */
  readonly redactors?: Registry<Redactor>;
}

const SINKS = ["sql", "jsonl"] as const;

/** The engine's audit sinks and each process's route through them. */
export class AuditSinks {
  readonly #options: AuditSinksOptions;
  readonly #warned = new Set<string>();

  constructor(options: AuditSinksOptions) {
    this.#options = options;
  }

  /** True when any sink is enabled. */
  get enabled(): boolean {
    return this.#options.sql || this.#options.jsonl !== undefined;
  }

  /** The route of `processId`'s events, by its `q:audit`. */
  routeOf(plan: ExecutionPlan, processId: string): AuditRoute {
    const audit = plan.processById.get(processId)?.audit;
    const sql = this.#options.sql;
    const jsonl = this.#options.jsonl !== undefined;
    const target = audit?.target;
    const all = { sql, jsonl, ...(target !== undefined ? { target } : {}) };
    if (audit?.sink === undefined) return all;
    const named = audit.sink;
    const available = named === "sql" ? sql : named === "jsonl" ? jsonl : false;
    if (!available) {
      const id = `${plan.uri}#${processId}`;
      if (!this.#warned.has(id)) {
        this.#warned.add(id);
        this.#options.logger?.warn(
          `process '${processId}' names the audit sink '${named}', which this engine does not have enabled (enabled: ${
            SINKS.filter((s) => all[s]).join(", ") || "none"
          }); its events go to the enabled sinks`,
          { code: "SUTRA.AUDIT.SINK_UNKNOWN", process: processId, sink: named },
        );
      }
      return all;
    }
    return {
      sql: named === "sql",
      jsonl: named === "jsonl",
      ...(target !== undefined ? { target } : {}),
    };
  }

  /** Whether a step of `processId` writes the engine database's journal. */
  writesSql(plan: ExecutionPlan, processId: string): boolean {
    return this.#options.sql && this.routeOf(plan, processId).sql;
  }

  /** Hands a committed step's events to the file sinks (called after the commit). */
  committed(step: CommittedStep): void {
    const jsonl = this.#options.jsonl;
    if (!jsonl || step.events.length === 0) return;
    const route = this.routeOf(step.plan, step.processId);
    if (!route.jsonl) return;
    jsonl.write(
      step.tenant,
      auditRecords(step, { registry: this.#options.redactors }),
      route.target,
    );
  }

  /** Writes what the file sinks hold queued. */
  async flush(): Promise<void> {
    await this.#options.jsonl?.flush();
  }

  /** Flushes and closes the file sinks (engine shutdown). */
  async close(): Promise<void> {
    await this.#options.jsonl?.close();
  }
}
