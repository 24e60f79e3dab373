/**
 * Instance migration: `POST /admin/instances/{id}/migrate` and the batch
 * `POST /admin/instances/migrate`. A request parses once into a plan; one
 * operation applies it to exactly one instance and answers a verdict; the
 * batch is a loop over that operation, one transaction per instance, so a
 * crash mid-batch leaves each instance either moved or untouched.
 *
 * A real run locks the instance row (and refuses, retry-safe, when a lane
 * or another replica holds the instance's claim), validates every locus
 * against the target (remap.ts), and in the same transaction re-pins the
 * row, rewrites its snapshot and re-points its waiting rows (message waits
 * and armed timers keep their due instants); with `resume`, the FAILED
 * instance's failed node is re-armed there too (retry.ts), so
 * migrate-and-resume is one commit. A dry run takes no lock and writes
 * nothing, and says so.
 *
 * Deliveries the source minted stay under the source pin (they drain where
 * they were made); the report warns about them. The audit journal keeps
 * its node ids and records the move. Once the last live or FAILED instance
 * has left a draining deployment, the deployment sweep retires it.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import { encodeSnapshotText, type InstanceState } from "../../executor/mod.ts";
import { decodeSnapshot } from "../../executor/mod.ts";
import type { ExecutionPlan, ProcessPlan } from "../../bpmn/mod.ts";
import type { Database, Transaction } from "../../persistence/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { errorMessage } from "../../core/errors.ts";
import {
  auditAdminEvent,
  decodeRow,
  INSTANCE_ROW_SELECT,
  type InstanceRowColumns,
  type LockedRow,
  lockedRowOf,
  openRow,
  withLockedInstance,
  writeState,
} from "./instance_lock.ts";
import { remapState } from "./remap.ts";
import { redriveFailedNode, reviveRows } from "./retry.ts";
import type { Protection } from "../audit/mod.ts";
import type { Keyring } from "../crypto/mod.ts";

/** What a migration needs. */
export interface MigrationOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  /** Whether the move is journaled (`sutra.audit.sql`). */
  readonly auditJournal: boolean;
  /** The keyring the instance's sensitive variables are opened and sealed again with. */
  readonly protection?: Protection;
}

/** Which instances a batch takes. */
export interface MigrationFilter {
  readonly sourceDeploymentId: string;
  readonly processId?: string;
  /** `SUSPENDED` (parked, live) or `FAILED`; absent takes both. */
  readonly status?: "SUSPENDED" | "FAILED";
  readonly includeTerminal: boolean;
}

/** A parsed request. */
export interface MigrationRequest {
  readonly targetDeploymentId: string;
  readonly targetProcessId?: string;
  readonly nodeMapping: Readonly<Record<string, string>>;
  readonly dryRun: boolean;
  readonly resume: boolean;
  /** Batch only. */
  readonly filter?: MigrationFilter;
  /** Batch only: how many instances at most (default 100, at most 1000). */
  readonly limit: number;
}

/** What became of one instance. */
export type MigrationOutcome =
  /** Moved (and, with resume, brought back). */
  | "MIGRATED"
  /** Dry run: it would move. */
  | "VALID"
  /** Refused by validation; nothing was written. */
  | "REFUSED"
  /** Its claim was held elsewhere; nothing was read or written. Re-run to converge. */
  | "BOUNCED"
  /** The commit failed and was rolled back. */
  | "FAILED";

/** The report on one instance. */
export interface MigrationVerdict {
  readonly instanceId: string;
  readonly outcome: MigrationOutcome;
  readonly dryRun: boolean;
  readonly resumed: boolean;
  readonly source?: { readonly deploymentId: string; readonly processId: string };
  readonly target: { readonly deploymentId: string; readonly processId?: string };
  /** Violations (outcome REFUSED/BOUNCED/FAILED), then warnings and notes. */
  readonly diagnostics: readonly Diagnostic[];
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function bodyInvalid(field: string, message: string): Diagnostic {
  return diagnostic("SUTRA.ADMIN.BODY.INVALID", message, { attributes: { field } });
}

/** Reads a migration request; every problem reported at once, each naming its field. */
export function parseMigrationRequest(
  body: unknown,
  how: { readonly batch: boolean },
): { request: MigrationRequest } | { diagnostics: Diagnostic[] } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { diagnostics: [bodyInvalid("body", "the body must be a JSON object")] };
  }
  const b = body as Record<string, unknown>;
  const problems: Diagnostic[] = [];
  const known = ["targetDeploymentId", "targetProcessId", "nodeMapping", "dryRun", "resume"];
  if (how.batch) known.push("filter", "limit");
  for (const k of Object.keys(b)) {
    if (!known.includes(k)) {
      problems.push(bodyInvalid(k, `unknown field '${k}'; the body takes ${known.join(", ")}`));
    }
  }
  const text = (field: string, value: unknown, required: boolean) => {
    if (value === undefined && !required) return undefined;
    if (typeof value === "string" && value.trim() !== "") return value;
    problems.push(bodyInvalid(field, `'${field}' must be a non-empty string`));
    return undefined;
  };
  const flag = (field: string) => {
    const value = b[field];
    if (value === undefined) return false;
    if (typeof value === "boolean") return value;
    problems.push(bodyInvalid(field, `'${field}' must be true or false`));
    return false;
  };
  const targetDeploymentId = text("targetDeploymentId", b.targetDeploymentId, true);
  const targetProcessId = text("targetProcessId", b.targetProcessId, false);
  const nodeMapping: Record<string, string> = {};
  if (b.nodeMapping !== undefined) {
    if (
      typeof b.nodeMapping !== "object" || b.nodeMapping === null || Array.isArray(b.nodeMapping)
    ) {
      problems.push(
        bodyInvalid("nodeMapping", "'nodeMapping' must be an object of node id to node id"),
      );
    } else {
      for (const [from, to] of Object.entries(b.nodeMapping)) {
        if (typeof to === "string" && to !== "" && from !== "") nodeMapping[from] = to;
        else {problems.push(
            bodyInvalid(`nodeMapping.${from}`, `nodeMapping '${from}' must map to a node id`),
          );}
      }
    }
  }
  const dryRun = flag("dryRun");
  const resume = flag("resume");
  let filter: MigrationFilter | undefined;
  let limit = DEFAULT_LIMIT;
  if (how.batch) {
    const f = b.filter;
    if (typeof f !== "object" || f === null || Array.isArray(f)) {
      problems.push(bodyInvalid("filter", "'filter' must be an object with sourceDeploymentId"));
    } else {
      const fr = f as Record<string, unknown>;
      for (const k of Object.keys(fr)) {
        if (!["sourceDeploymentId", "processId", "status", "includeTerminal"].includes(k)) {
          problems.push(bodyInvalid(`filter.${k}`, `unknown filter field '${k}'`));
        }
      }
      const source = text("filter.sourceDeploymentId", fr.sourceDeploymentId, true);
      const processId = text("filter.processId", fr.processId, false);
      let status: MigrationFilter["status"];
      if (fr.status !== undefined) {
        if (fr.status === "SUSPENDED" || fr.status === "FAILED") status = fr.status;
        else {problems.push(
            bodyInvalid("filter.status", "'filter.status' must be SUSPENDED or FAILED"),
          );}
      }
      if (fr.includeTerminal !== undefined && typeof fr.includeTerminal !== "boolean") {
        problems.push(
          bodyInvalid("filter.includeTerminal", "'filter.includeTerminal' must be true or false"),
        );
      }
      if (source !== undefined) {
        filter = {
          sourceDeploymentId: source,
          processId,
          status,
          includeTerminal: fr.includeTerminal === true,
        };
      }
    }
    if (b.limit !== undefined) {
      if (typeof b.limit === "number" && Number.isInteger(b.limit) && b.limit >= 1) {
        limit = Math.min(b.limit, MAX_LIMIT);
      } else problems.push(bodyInvalid("limit", "'limit' must be a whole number of at least 1"));
    }
    // Contradictions a request shows by itself, caught once rather than per instance.
    if (resume && filter?.status === "SUSPENDED") {
      problems.push(diagnostic(
        "SUTRA.ADMIN.MIGRATE.REQUEST_CONTRADICTS",
        "resume brings FAILED instances back, and filter.status SUSPENDED selects none of them",
        { attributes: { field: "filter.status" } },
      ));
    }
    if (targetProcessId !== undefined && filter !== undefined && filter.processId === undefined) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.MIGRATE.REQUEST_CONTRADICTS",
        "targetProcessId re-homes one process: name it in filter.processId, one mapping cannot fit several",
        { attributes: { field: "filter.processId" } },
      ));
    }
  }
  if (problems.length > 0 || targetDeploymentId === undefined) return { diagnostics: problems };
  return {
    request: { targetDeploymentId, targetProcessId, nodeMapping, dryRun, resume, filter, limit },
  };
}

/** The target, when it is active; else the refusal. */
function activeTarget(
  registry: DeploymentRegistry,
  id: string,
): ActiveDeployment | Diagnostic {
  const target = registry.get(id);
  if (target?.status === "active") return target;
  return diagnostic(
    "SUTRA.ADMIN.MIGRATE.TARGET_NOT_ACTIVE",
    target
      ? `deployment ${id} is ${target.status}; migrating onto it would strand the instance again`
      : `no active deployment has id ${id}`,
    { attributes: { targetDeploymentId: id } },
  );
}

/** The processes a plan-holding deployment declares, by id. */
function processesOf(deployment: ActiveDeployment): Map<string, ProcessPlan> {
  const out = new Map<string, ProcessPlan>();
  for (const plan of deployment.plans.values()) {
    for (const p of plan.processes) out.set(p.id, p);
  }
  return out;
}

/** Everything validation found, with the rewrite when it found no violation. */
interface Checked {
  readonly violations: Diagnostic[];
  readonly warnings: Diagnostic[];
  readonly state?: InstanceState;
  readonly targetPlan?: ExecutionPlan;
  readonly targetProcessId: string;
  readonly redrive?: ReturnType<typeof redriveFailedNode>;
}

/** Validates the move of `row` (not written). */
function check(
  o: MigrationOptions,
  row: LockedRow,
  r: MigrationRequest,
  target: ActiveDeployment,
): Checked {
  const targetProcessId = r.targetProcessId ?? row.processId;
  const refuse = (d: Diagnostic): Checked => ({ violations: [d], warnings: [], targetProcessId });
  const attrs = { instanceId: row.instanceId };
  if (row.status === "COMPLETED" || row.status === "TERMINATED") {
    return refuse(diagnostic(
      "SUTRA.ADMIN.MIGRATE.INSTANCE_TERMINAL",
      `instance ${row.instanceId} is ${row.status}: history is never re-pinned`,
      { attributes: { ...attrs, status: row.status } },
    ));
  }
  if (r.resume && row.status !== "FAILED") {
    return refuse(diagnostic(
      "SUTRA.ADMIN.MIGRATE.RESUME_NOT_FAILED",
      `instance ${row.instanceId} is not FAILED: it resumes on its own correlation or timer, there is nothing to bring back`,
      { attributes: attrs },
    ));
  }
  const source = o.registry.get(row.deploymentId);
  const sourcePlan = source?.plans.get(row.processId);
  if (!source || !sourcePlan) {
    return refuse(diagnostic(
      "SUTRA.ADMIN.MIGRATE.SOURCE_UNRESOLVABLE",
      `instance ${row.instanceId} is pinned to deployment ${row.deploymentId}, which is neither active nor draining here`,
      { attributes: { ...attrs, deploymentId: row.deploymentId } },
    ));
  }
  const targetPlan = target.plans.get(targetProcessId);
  if (!targetPlan) {
    return refuse(diagnostic(
      "SUTRA.ADMIN.MIGRATE.PROCESS_ABSENT",
      `deployment ${target.deploymentId} declares no process '${targetProcessId}' (it declares ${
        [...target.plans.keys()].map((p) => `'${p}'`).join(", ")
      })`,
      { attributes: { ...attrs, targetProcessId } },
    ));
  }
  if (target.deploymentId === row.deploymentId && targetProcessId === row.processId) {
    return refuse(diagnostic(
      "SUTRA.ADMIN.MIGRATE.TARGET_SAME_AS_SOURCE",
      `instance ${row.instanceId} already runs process '${targetProcessId}' of deployment ${target.deploymentId}`,
      { attributes: attrs },
    ));
  }
  const state = decodeRow(sourcePlan, row);
  if (Array.isArray(state)) return { violations: [...state], warnings: [], targetProcessId };
  const remapped = remapState({
    state: state as InstanceState,
    source: sourcePlan.processById.get(row.processId)!,
    target: targetPlan.processById.get(targetProcessId)!,
    sourceProcesses: processesOf(source),
    targetProcesses: processesOf(target),
    nodeMapping: r.nodeMapping,
  });
  if (!remapped.state) return { ...remapped, targetProcessId };
  let redrive: Checked["redrive"];
  if (r.resume) {
    redrive = redriveFailedNode(
      targetPlan,
      remapped.state,
      "SUTRA.ADMIN.MIGRATE.RESUME_UNSUPPORTED",
    );
    if ("code" in redrive) {
      return { violations: [redrive], warnings: remapped.warnings, targetProcessId };
    }
  }
  // The rewritten snapshot must read back against the target before anything is written.
  const text = encodeSnapshotText(targetPlan, remapped.state);
  const reread = decodeSnapshot(targetPlan, text);
  if (reread.diagnostics) {
    return { violations: [...reread.diagnostics], warnings: [], targetProcessId };
  }
  return { ...remapped, targetPlan, targetProcessId, redrive };
}

/** Migrates one instance (see the module doc); the verdict, never a throw for a refusal. */
export async function migrateInstance(
  o: MigrationOptions,
  instanceId: string,
  r: MigrationRequest,
): Promise<MigrationVerdict | "missing"> {
  const targetOrRefusal = activeTarget(o.registry, r.targetDeploymentId);
  const base = {
    instanceId,
    dryRun: r.dryRun,
    resumed: false,
    target: { deploymentId: r.targetDeploymentId, processId: r.targetProcessId },
  };
  if ("code" in targetOrRefusal) {
    return { ...base, outcome: "REFUSED", diagnostics: [targetOrRefusal] };
  }
  const target = targetOrRefusal;
  const verdict = (
    row: LockedRow,
    outcome: MigrationOutcome,
    checked: Checked,
    extra: Diagnostic[] = [],
  ) => ({
    ...base,
    outcome,
    resumed: outcome === "MIGRATED" && r.resume,
    source: { deploymentId: row.deploymentId, processId: row.processId },
    target: { deploymentId: target.deploymentId, processId: checked.targetProcessId },
    diagnostics: [...checked.violations, ...checked.warnings, ...extra],
  });
  if (r.dryRun) {
    const row = await readRow(o.db, instanceId, o.protection?.keyring);
    if (!row) return "missing";
    const checked = check(o, row, r, target);
    const pending = await pendingOutbox(o.db, row);
    return verdict(row, checked.violations.length > 0 ? "REFUSED" : "VALID", checked, [
      ...pending,
      diagnostic(
        "SUTRA.ADMIN.MIGRATE.DRY_RUN",
        "dry run: nothing was locked or written; a step running meanwhile can change the outcome",
        { severity: "INFO" },
      ),
    ]);
  }
  try {
    const answer = await withLockedInstance(o.db, instanceId, async (tx, locked) => {
      const row = await openRow(locked, o.protection?.keyring);
      const checked = check(o, row, r, target);
      if (checked.violations.length > 0) return verdict(row, "REFUSED", checked);
      const state = checked.state!;
      const redrive = checked.redrive && !("code" in checked.redrive) ? checked.redrive : undefined;
      await auditAdminEvent(tx, row, state, {
        type: "instance.migrated",
        journal: o.auditJournal,
        data: {
          source: { deploymentId: row.deploymentId, processId: row.processId },
          target: { deploymentId: target.deploymentId, processId: checked.targetProcessId },
          nodeMapping: r.nodeMapping,
          resumed: r.resume,
        },
      });
      await writeState(tx, row, checked.targetPlan!, state, {
        target: { deploymentId: target.deploymentId, processId: checked.targetProcessId },
        keyring: o.protection?.keyring,
      });
      await repointWaits(tx, row, state, checked.targetPlan!);
      if (redrive) {
        const conflict = await reviveRows(tx, row, redrive, "SUTRA.ADMIN.MIGRATE.ALIAS_CONFLICT");
        if (conflict) {
          throw new Refused(verdict(row, "REFUSED", { ...checked, violations: [conflict] }));
        }
      }
      return verdict(row, "MIGRATED", checked, await pendingOutbox(tx, row));
    });
    if (answer === "missing") return "missing";
    if (answer === "held") {
      return {
        ...base,
        outcome: "BOUNCED",
        diagnostics: [diagnostic(
          "SUTRA.ADMIN.MIGRATE.CLAIM_HELD",
          `instance ${instanceId} is being advanced right now; nothing was read or written, run the migration again`,
          { attributes: { instanceId } },
        )],
      };
    }
    return answer;
  } catch (error) {
    if (error instanceof Refused) return error.verdict;
    return {
      ...base,
      outcome: "FAILED",
      diagnostics: [diagnostic(
        "SUTRA.ADMIN.MIGRATE.COMMIT_FAILED",
        `the migration of instance ${instanceId} was rolled back: ${errorMessage(error)}`,
        { attributes: { instanceId } },
      )],
    };
  }
}

class Refused extends Error {
  constructor(readonly verdict: MigrationVerdict) {
    super("the migration was refused inside its transaction");
  }
}

async function readRow(
  db: Database,
  instanceId: string,
  keyring?: Keyring,
): Promise<LockedRow | undefined> {
  const { rows } = await db.query<InstanceRowColumns>(
    `select ${INSTANCE_ROW_SELECT}
       from instances where instance_id = $1 order by tenant limit 1`,
    [instanceId],
  );
  const r = rows[0];
  return r && await openRow(lockedRowOf(instanceId, r), keyring);
}

/** Points the instance's waiting rows at the nodes their waits moved to. */
async function repointWaits(
  tx: Transaction,
  row: LockedRow,
  state: InstanceState,
  plan: ExecutionPlan,
): Promise<void> {
  const { rows } = await tx.query<{ wait_id: string; detail: { wait: number } | null }>(
    "select wait_id, detail from waits where instance_id = $1 and tenant = $2",
    [row.instanceId, row.tenant],
  );
  for (const r of rows) {
    const wait = r.detail ? state.waits.get(r.detail.wait) : undefined;
    if (!wait) continue;
    const node = plan.processById.get(wait.process)!.nodes[wait.node].id;
    await tx.query(
      `update waits set node_id = $3, detail = jsonb_set(detail, '{process}', to_jsonb($4::text))
        where wait_id = $1 and tenant = $2`,
      [r.wait_id, row.tenant, node, wait.process],
    );
  }
}

/** The warning about deliveries still pending under the source pin, if any. */
async function pendingOutbox(
  db: Pick<Database, "query">,
  row: LockedRow,
): Promise<Diagnostic[]> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from outbox
      where tenant = $1 and instance_id = $2 and deployment_id = $3 and poisoned_at is null`,
    [row.tenant, row.instanceId, row.deploymentId],
  );
  if (rows[0].n === 0) return [];
  return [diagnostic(
    "SUTRA.ADMIN.MIGRATE.OUTBOX_PENDING",
    `${
      rows[0].n
    } delivery(ies) minted by deployment ${row.deploymentId} stay under its pin and are sent from there`,
    { severity: "WARNING", attributes: { pending: rows[0].n } },
  )];
}

/** `POST /admin/instances/{id}/migrate`: the verdict as an HTTP status and body. */
export async function migrateOne(
  o: MigrationOptions,
  instanceId: string,
  r: MigrationRequest,
): Promise<{ status: number; body: unknown }> {
  const verdict = await migrateInstance(o, instanceId, r);
  if (verdict === "missing") {
    return {
      status: 404,
      body: {
        diagnostics: [diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no instance ${instanceId}`, {
          attributes: { instanceId },
        })],
      },
    };
  }
  const status =
    { MIGRATED: 200, VALID: 200, REFUSED: 422, BOUNCED: 409, FAILED: 500 }[verdict.outcome];
  return { status, body: verdict };
}

/** The batch report: totals by outcome and one verdict per selected instance, in id order. */
export interface BatchReport {
  readonly totals: Readonly<Record<MigrationOutcome, number>>;
  readonly instances: readonly MigrationVerdict[];
}

/**
 * `POST /admin/instances/migrate`: selects by id order, then applies the
 * plan to each instance on its own. A batch-level refusal (target not
 * active, or the same as the source) answers before anything is selected.
 */
export async function migrateBatch(
  o: MigrationOptions,
  r: MigrationRequest,
): Promise<BatchReport | { refusal: Diagnostic[] }> {
  const filter = r.filter!;
  const target = activeTarget(o.registry, r.targetDeploymentId);
  if ("code" in target) return { refusal: [target] };
  if (filter.sourceDeploymentId === r.targetDeploymentId && r.targetProcessId === undefined) {
    return {
      refusal: [diagnostic(
        "SUTRA.ADMIN.MIGRATE.TARGET_SAME_AS_SOURCE",
        `the source and the target are the same deployment (${r.targetDeploymentId})`,
        { attributes: { targetDeploymentId: r.targetDeploymentId } },
      )],
    };
  }
  const statuses = filter.status === "FAILED"
    ? ["FAILED"]
    : filter.status === "SUSPENDED"
    ? ["RUNNING", "SUSPENDED"]
    : ["RUNNING", "SUSPENDED", "FAILED"];
  if (filter.includeTerminal) statuses.push("COMPLETED", "TERMINATED");
  const { rows } = await o.db.query<{ instance_id: string }>(
    `select instance_id from instances
      where deployment_id = $1 and status = any($2::text[])
        and ($3::text is null or process_id = $3::text)
      order by instance_id limit $4`,
    [filter.sourceDeploymentId, statuses, filter.processId ?? null, r.limit],
  );
  const instances: MigrationVerdict[] = [];
  for (const { instance_id } of rows) {
    const verdict = await migrateInstance(o, instance_id, r);
    // Purged between the selection and its turn: nothing to report on.
    if (verdict !== "missing") instances.push(verdict);
  }
  const totals = { MIGRATED: 0, VALID: 0, REFUSED: 0, BOUNCED: 0, FAILED: 0 };
  for (const v of instances) totals[v.outcome]++;
  return { totals, instances };
}
