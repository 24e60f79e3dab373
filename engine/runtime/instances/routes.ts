/**
 * The instance surfaces: `GET /sutra/instances/{id}` (operate: status only)
 * and, behind the admin gate, the full inspection (`GET
 * /admin/instances/{id}` with variables, waits and aliases), lookup by
 * alias, the audit history and cancellation. Variables whose values are
 * sensitive are masked in every view; the operate view shows no variables
 * at all.
 *
 * @module
 */
import { diagnostic } from "../../core/diagnostic.ts";
import { decodeSnapshot } from "../../executor/mod.ts";
import { observedVariables, type Protection } from "../audit/mod.ts";
import { maskSealed } from "../crypto/mod.ts";
import type { Database } from "../../persistence/mod.ts";
import type { AdminGate } from "../admin_auth.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import { diagnosticResponse, jsonResponse, type Router } from "../http_router.ts";
import type { Config } from "../../core/mod.ts";
import { addConsoleRoutes, CONSOLE_ENABLED } from "../admin/console.ts";
import { addAdminRoutes } from "./admin_routes.ts";
import { surfaceStatus } from "./repository.ts";

/** What the routes need. */
export interface InstanceRoutesOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  readonly admin: AdminGate;
  /** Whether steps write the audit journal (`sutra.audit.sql`). */
  readonly auditJournal: boolean;
  /** The engine's configuration: `sutra.console.enabled` mounts the web console. */
  readonly config?: Config;
  /** Cancels an instance; resolves to the outcome as an HTTP response. */
  readonly cancel: (instanceId: string) => Promise<Response>;
  /** The keyring administrative changes open and seal sensitive variables with. */
  readonly protection?: Protection;
}

/** An `instances` row as the admin views read it. */
export interface InstanceRow {
  tenant: string;
  instance_id: string;
  deployment_id: string;
  process_id: string;
  status: string;
  snapshot: Uint8Array;
  failure_code: string | null;
  failure_detail: string | null;
  failure_node: string | null;
  owner: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

/** Reads one instance row by id. */
export async function findInstance(db: Database, id: string): Promise<InstanceRow | undefined> {
  const { rows } = await db.query<InstanceRow>(
    "select * from instances where instance_id = $1 order by tenant limit 1",
    [id],
  );
  return rows[0];
}

const notFound = (id: string) =>
  diagnosticResponse(404, [
    diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no instance ${id}`, {
      attributes: { instanceId: id },
    }),
  ]);

/** The columns a summary shows. */
export type SummaryRow = Omit<InstanceRow, "snapshot">;

/** How every instance view starts: identity, pin, status, failure and times. */
export interface InstanceSummary {
  readonly instanceId: string;
  readonly tenant: string;
  readonly deploymentId: string;
  readonly processId: string;
  /** The surface status (see {@link surfaceStatus}). */
  readonly status: string;
  readonly failure: { code: string; detail: string | null; node: string | null } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly endedAt: string | null;
}

/** The summary of one row. */
export function instanceSummary(row: SummaryRow): InstanceSummary {
  return {
    instanceId: row.instance_id,
    tenant: row.tenant,
    deploymentId: row.deployment_id,
    processId: row.process_id,
    status: surfaceStatus(row),
    failure: row.failure_code === null
      ? null
      : { code: row.failure_code, detail: row.failure_detail, node: row.failure_node },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    endedAt: row.ended_at?.toISOString() ?? null,
  };
}

/**
 * The admin view: the summary plus root variables (display form), waits and
 * aliases. Variables show as their masked copy (`observedVariables`): a
 * sensitive variable (declared so, or holding a value read from a store
 * with a `dataClass`) as `***`, a payload its `q:source` redactors
 * searched with each span they located masked; `redacted` names each masked
 * variable with its class, so an operator sees that it exists and why it is
 * hidden. An encrypted variable is shown masked without being decrypted:
 * the view needs no key.
 */
async function inspect(o: InstanceRoutesOptions, row: InstanceRow) {
  const plan = o.registry.get(row.deployment_id)?.plans.get(row.process_id);
  let variables: Record<string, string> | null = null;
  let redacted: Record<string, string> = {};
  let waits: { node: string; kind: string; channel?: string }[] = [];
  let completed: string[] = [];
  if (plan) {
    const decoded = decodeSnapshot(plan, maskSealed(row.snapshot));
    if (!decoded.diagnostics) {
      ({ variables, redacted } = observedVariables(plan, decoded.state));
      completed = [...decoded.state.completed].sort();
      waits = [...decoded.state.waits.values()].map((w) => ({
        node: plan.processById.get(w.process)?.nodes[w.node]?.id ?? String(w.node),
        kind: w.kind,
        ...(w.channel ? { channel: w.channel } : {}),
      }));
    }
  }
  const { rows: aliases } = await o.db.query<
    { name: string; value: string; retired_at: Date | null }
  >(
    "select name, value, retired_at from aliases where tenant = $1 and instance_id = $2 order by created_at",
    [row.tenant, row.instance_id],
  );
  return {
    ...instanceSummary(row),
    claimedBy: row.owner,
    variables,
    redacted,
    waits,
    completed,
    aliases: aliases.map((a) => ({
      name: a.name,
      value: a.value,
      live: a.retired_at === null,
    })),
  };
}

/** Mounts the instance routes, and with them the operator's admin routes (admin_routes.ts). */
export function addInstanceRoutes(router: Router, o: InstanceRoutesOptions): void {
  addAdminRoutes(router, o);
  if (o.config?.require(CONSOLE_ENABLED)) addConsoleRoutes(router, o);
  router.add("GET", "/sutra/instances/{id}", async (_request, { id }) => {
    const row = await findInstance(o.db, id);
    return row ? jsonResponse(200, instanceSummary(row)) : notFound(id);
  });
  router.add(
    "GET",
    "/admin/instances/{id}",
    o.admin.requireAdmin(async (_request, { id }) => {
      const row = await findInstance(o.db, id);
      return row ? jsonResponse(200, await inspect(o, row)) : notFound(id);
    }, "operate"),
  );
  router.add(
    "GET",
    "/admin/instances/{id}/history",
    o.admin.requireAdmin(async (_request, { id }) => {
      const row = await findInstance(o.db, id);
      if (!row) return notFound(id);
      if (!o.auditJournal) {
        // An empty journal that says why, not a 404 that suggests the instance is unknown.
        return jsonResponse(200, {
          instanceId: id,
          journal: "off",
          events: [],
          note: "the audit journal is off (sutra.audit.sql=false); no events are recorded",
        });
      }
      const { rows } = await o.db.query<
        { seq: number; event_type: string; node_id: string | null; at: Date; data: unknown }
      >(
        "select seq, event_type, node_id, at, data from audit_events where tenant = $1 and instance_id = $2 order by seq",
        [row.tenant, id],
      );
      return jsonResponse(200, {
        instanceId: id,
        journal: "sql",
        events: rows.map((r) => ({
          seq: r.seq,
          type: r.event_type,
          node: r.node_id,
          at: r.at.toISOString(),
          ...(r.data === null ? {} : { data: r.data }),
        })),
      });
    }, "operate"),
  );
  router.add(
    "GET",
    "/admin/instances/by-alias/{name}/{value}",
    o.admin.requireAdmin(async (_request, { name, value }) => {
      const { rows } = await o.db.query<InstanceRow>(
        `select i.* from aliases a join instances i
           on i.tenant = a.tenant and i.instance_id = a.instance_id
          where a.name = $1 and a.value = $2 and a.retired_at is null
          order by a.created_at`,
        [name, value],
      );
      if (rows.length === 0) {
        return diagnosticResponse(404, [
          diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no live instance holds ${name}=${value}`, {
            attributes: { alias: name, value },
          }),
        ]);
      }
      return jsonResponse(200, { instances: rows.map(instanceSummary) });
    }, "operate"),
  );
  router.add(
    "POST",
    "/admin/instances/{id}/cancel",
    o.admin.requireAdmin((_request, { id }) => o.cancel(id), "operate"),
  );
}
