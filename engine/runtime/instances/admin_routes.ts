/**
 * The operator's admin routes, behind the same fail-closed gate as the rest
 * of `/admin/*`: instance search, incidents, retry, variable changes, the
 * deployment listing with instance counts, instance migration, and the
 * OpenAPI document describing the whole admin surface.
 *
 * Reading and fixing instances takes the `operate` role; migration, which
 * changes which model an instance runs on, takes `deploy`.
 *
 * @module
 */
import { diagnostic } from "../../core/diagnostic.ts";
import type { Database } from "../../persistence/mod.ts";
import type { AdminGate } from "../admin_auth.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import {
  diagnosticResponse,
  jsonResponse,
  readCappedBody,
  type RouteHandler,
  type Router,
} from "../http_router.ts";
import { DEPLOYMENT_STATUSES, listDeployments } from "./deployments_view.ts";
import {
  INCIDENT_KINDS,
  type IncidentKind,
  listIncidents,
  resolveStoreWriteIncident,
} from "./incidents.ts";
import {
  auditAdminEvent,
  decodeRow,
  type LockedRow,
  openRow,
  withLockedInstance,
  writeState,
} from "./instance_lock.ts";
import { migrateBatch, migrateOne, parseMigrationRequest } from "./migrate.ts";
import { adminOpenApi } from "./openapi.ts";
import type { Protection } from "../audit/mod.ts";
import { listPersonTasks } from "../admin/tasks.ts";
import { redriveFailedNode, reviveRows } from "./retry.ts";
import { instanceSummary } from "./routes.ts";
import { MAX_PAGE, parseSearch, searchInstances } from "./search.ts";
import { parseVariableChange } from "./variables.ts";

/** What the admin routes need. */
export interface AdminRoutesOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  readonly admin: AdminGate;
  /** Whether administrative changes are journaled (`sutra.audit.sql`). */
  readonly auditJournal: boolean;
  /** The keyring a changed instance's sensitive variables are opened and sealed again with. */
  readonly protection?: Protection;
}

/** Largest admin request body read (a migration's node mapping is the biggest there is). */
const MAX_BODY_BYTES = 1024 * 1024;

const unknownInstance = (id: string) =>
  diagnosticResponse(404, [
    diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no instance ${id}`, {
      attributes: { instanceId: id },
    }),
  ]);

const claimHeld = (id: string) =>
  diagnosticResponse(409, [
    diagnostic(
      "SUTRA.ADMIN.INSTANCE.CLAIM_HELD",
      `instance ${id} is being advanced right now; nothing was changed, try again`,
      { attributes: { instanceId: id } },
    ),
  ]);

/** Reads a JSON body (at most 1 MiB) and hands it over; 413 or 400 otherwise. */
export async function withJsonBody(
  request: Request,
  handle: (body: unknown) => Promise<Response>,
): Promise<Response> {
  const bytes = await readCappedBody(request, MAX_BODY_BYTES);
  if (!bytes) {
    return diagnosticResponse(413, [
      diagnostic(
        "SUTRA.INBOUND.PAYLOAD_TOO_LARGE",
        `the request body is over ${MAX_BODY_BYTES} bytes`,
        { attributes: { capBytes: MAX_BODY_BYTES } },
      ),
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return diagnosticResponse(400, [
      diagnostic("SUTRA.ADMIN.BODY.INVALID", "the request body is not valid JSON", {
        attributes: { field: "body" },
      }),
    ]);
  }
  return await handle(body);
}

/** Reads the listing's own parameters: each must be known, once, and valid. */
function listingParams(
  request: Request,
  allowed: Readonly<Record<string, (value: string) => string | undefined>>,
): Record<string, string> | Response {
  const problems = [];
  const values: Record<string, string> = {};
  for (const [name, value] of new URL(request.url).searchParams) {
    const check = allowed[name];
    if (!check) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.QUERY.UNKNOWN",
        `unknown query parameter '${name}'; this listing takes ${Object.keys(allowed).join(", ")}`,
        { attributes: { parameter: name } },
      ));
      continue;
    }
    const why = name in values ? "is given more than once" : check(value);
    if (why) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.QUERY.INVALID",
        `query parameter '${name}' ${why} (got '${value.slice(0, 80)}')`,
        { attributes: { parameter: name, value: value.slice(0, 200) } },
      ));
    } else values[name] = value;
  }
  return problems.length > 0 ? diagnosticResponse(400, problems) : values;
}

const oneOf = (options: readonly string[]) => (value: string) =>
  options.includes(value) ? undefined : `must be one of ${options.join(", ")}`;

const pageSize = (value: string) =>
  /^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= MAX_PAGE * 2
    ? undefined
    : `must be a whole number from 1 to ${MAX_PAGE * 2}`;

/** Mounts the operator's admin routes. */
export function addAdminRoutes(router: Router, o: AdminRoutesOptions): void {
  const operate = (handler: RouteHandler) => o.admin.requireAdmin(handler, "operate");
  const deploy = (handler: RouteHandler) => o.admin.requireAdmin(handler, "deploy");

  router.add(
    "GET",
    "/admin/instances",
    operate(async (request) => {
      const parsed = parseSearch(new URL(request.url).searchParams);
      if ("diagnostics" in parsed) return diagnosticResponse(400, parsed.diagnostics);
      const page = await searchInstances(o.db, parsed.search);
      return jsonResponse(200, {
        instances: page.rows.map(instanceSummary),
        ...(page.next === undefined ? {} : { next: page.next }),
      });
    }),
  );

  router.add(
    "GET",
    "/admin/incidents",
    operate(async (request) => {
      const params = listingParams(request, { kind: oneOf(INCIDENT_KINDS), limit: pageSize });
      if (params instanceof Response) return params;
      const incidents = await listIncidents(o.db, {
        kinds: params.kind ? [params.kind as IncidentKind] : undefined,
        limit: params.limit ? Number(params.limit) : 100,
      });
      return jsonResponse(200, { incidents });
    }),
  );

  router.add(
    "DELETE",
    "/admin/incidents/store-write/{id}",
    operate(async (_request, { id }) => {
      if (await resolveStoreWriteIncident(o.db, id)) return jsonResponse(200, { resolved: id });
      return diagnosticResponse(404, [
        diagnostic("SUTRA.ADMIN.INCIDENT.UNKNOWN", `no store-write incident ${id}`, {
          attributes: { id },
        }),
      ]);
    }),
  );

  router.add(
    "GET",
    "/admin/deployments",
    operate(async (request) => {
      const params = listingParams(request, { status: oneOf(DEPLOYMENT_STATUSES) });
      if (params instanceof Response) return params;
      return jsonResponse(200, { deployments: await listDeployments(o.db, params.status) });
    }),
  );

  router.add(
    "GET",
    "/admin/tasks",
    operate(async (request) => {
      const params = listingParams(request, { limit: pageSize });
      if (params instanceof Response) return params;
      const limit = params.limit ? Number(params.limit) : 100;
      return jsonResponse(200, { tasks: await listPersonTasks(o.db, o.registry, limit) });
    }),
  );

  router.add(
    "GET",
    "/admin/openapi.json",
    operate(() => Promise.resolve(jsonResponse(200, adminOpenApi()))),
  );

  router.add(
    "PATCH",
    "/admin/instances/{id}/variables",
    operate((request, { id }) => withJsonBody(request, (body) => setVariables(o, id, body))),
  );

  router.add("POST", "/admin/instances/{id}/retry", operate((_request, { id }) => retry(o, id)));

  router.add(
    "POST",
    "/admin/instances/migrate",
    deploy((request) =>
      withJsonBody(request, async (body) => {
        const parsed = parseMigrationRequest(body, { batch: true });
        if ("diagnostics" in parsed) return diagnosticResponse(400, parsed.diagnostics);
        const report = await migrateBatch(o, parsed.request);
        return "refusal" in report
          ? diagnosticResponse(422, report.refusal)
          : jsonResponse(200, report);
      })
    ),
  );

  router.add(
    "POST",
    "/admin/instances/{id}/migrate",
    deploy((request, { id }) =>
      withJsonBody(request, async (body) => {
        const parsed = parseMigrationRequest(body, { batch: false });
        if ("diagnostics" in parsed) return diagnosticResponse(400, parsed.diagnostics);
        const answer = await migrateOne(o, id, parsed.request);
        return jsonResponse(answer.status, answer.body);
      })
    ),
  );
}

/** Decodes the locked row against its own plan, or answers why it cannot be. */
function loadLocked(o: AdminRoutesOptions, row: LockedRow) {
  const plan = o.registry.get(row.deploymentId)?.plans.get(row.processId);
  if (!plan) {
    return diagnosticResponse(409, [
      diagnostic(
        "SUTRA.ADMIN.INSTANCE.UNLOADED",
        `instance ${row.instanceId} is pinned to deployment ${row.deploymentId}, which this engine does not serve`,
        { attributes: { instanceId: row.instanceId, deploymentId: row.deploymentId } },
      ),
    ]);
  }
  const state = decodeRow(plan, row);
  if (Array.isArray(state)) return diagnosticResponse(409, state);
  return { plan, state: state as Exclude<typeof state, readonly unknown[]> };
}

async function setVariables(o: AdminRoutesOptions, id: string, body: unknown): Promise<Response> {
  const answer = await withLockedInstance(o.db, id, async (tx, locked) => {
    const row = await openRow(locked, o.protection?.keyring);
    if (row.status !== "RUNNING" && row.status !== "SUSPENDED" && row.status !== "FAILED") {
      return diagnosticResponse(409, [
        diagnostic(
          "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE",
          `instance ${id} has ended (${row.status}); its variables are history`,
          { attributes: { instanceId: id, status: row.status } },
        ),
      ]);
    }
    const loaded = loadLocked(o, row);
    if (loaded instanceof Response) return loaded;
    const { plan, state } = loaded;
    const parsed = parseVariableChange(body, plan.processById.get(row.processId)!);
    if ("diagnostics" in parsed) return diagnosticResponse(400, parsed.diagnostics);
    const root = [...state.scopes.values()].find((s) => s.parent === undefined);
    if (!root) {
      return diagnosticResponse(409, [
        diagnostic("SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE", `instance ${id} has no process scope`, {
          attributes: { instanceId: id },
        }),
      ]);
    }
    for (const [name, value] of parsed.values) root.vars.set(name, value);
    const names = [...parsed.values.keys()].sort();
    await auditAdminEvent(tx, row, state, {
      type: "variables.changed",
      journal: o.auditJournal,
      data: { variables: names },
    });
    await writeState(tx, row, plan, state, { keyring: o.protection?.keyring });
    return jsonResponse(200, { instanceId: id, changed: names });
  });
  if (answer === "missing") return unknownInstance(id);
  if (answer === "held") return claimHeld(id);
  return answer;
}

async function retry(o: AdminRoutesOptions, id: string): Promise<Response> {
  const answer = await withLockedInstance(o.db, id, async (tx, locked) => {
    const row = await openRow(locked, o.protection?.keyring);
    if (row.status !== "FAILED") {
      return diagnosticResponse(409, [
        diagnostic(
          "SUTRA.ADMIN.RETRY.NOT_FAILED",
          `instance ${id} is ${row.status}, not FAILED; only a failed instance is retried`,
          { attributes: { instanceId: id, status: row.status } },
        ),
      ]);
    }
    const loaded = loadLocked(o, row);
    if (loaded instanceof Response) return loaded;
    const { plan, state } = loaded;
    const failure = state.failure;
    const redrive = redriveFailedNode(plan, state, "SUTRA.ADMIN.RETRY.UNSUPPORTED");
    if ("code" in redrive) return diagnosticResponse(409, [redrive]);
    await auditAdminEvent(tx, row, state, {
      type: "instance.retried",
      journal: o.auditJournal,
      node: redrive.node,
      data: { failure: failure?.code ?? null },
    });
    await writeState(tx, row, plan, state, { keyring: o.protection?.keyring });
    const conflict = await reviveRows(tx, row, redrive, "SUTRA.ADMIN.RETRY.ALIAS_CONFLICT");
    if (conflict) throw new RefusedChange(diagnosticResponse(409, [conflict]));
    return jsonResponse(200, { instanceId: id, status: "WAITING", retrying: redrive.node });
  }).catch((error) => {
    if (error instanceof RefusedChange) return error.response;
    throw error;
  });
  if (answer === "missing") return unknownInstance(id);
  if (answer === "held") return claimHeld(id);
  return answer;
}

/** Thrown inside a locked change to roll it back and answer `response`. */
export class RefusedChange extends Error {
  constructor(readonly response: Response) {
    super("the change was refused and rolled back");
    this.name = "RefusedChange";
  }
}
