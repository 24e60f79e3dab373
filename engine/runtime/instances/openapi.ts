/**
 * The OpenAPI 3.0 description of the admin surface, served at
 * `/admin/openapi.json`: deployments, instance inspection and search,
 * incidents, retry, cancel, variable changes and migration, with the API
 * key scheme and the diagnostics body every refusal carries.
 *
 * @module
 */
import { ENGINE_VERSION } from "../../core/mod.ts";
import { INCIDENT_KINDS } from "./incidents.ts";
import { DEFAULT_PAGE, MAX_PAGE, SEARCH_STATUSES } from "./search.ts";
import { DEPLOYMENT_STATUSES } from "./deployments_view.ts";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: Json) => ({ "application/json": { schema } });

/** The refusals every admin route can answer, plus the ones given. */
function responses(ok: string, okSchema: Json, refusals: Record<string, string> = {}): Json {
  const out: Json = { 200: { description: ok, content: json(okSchema) } };
  const all = {
    401: "The admin credential is missing or wrong (SUTRA.ADMIN.AUTH.MISSING / INVALID).",
    403: "The credential lacks the route's role (SUTRA.ADMIN.AUTH.FORBIDDEN).",
    503: "No admin credential is configured (SUTRA.ADMIN.AUTH.UNCONFIGURED).",
    ...refusals,
  };
  for (const [status, description] of Object.entries(all)) {
    out[status] = { description, content: json(ref("Diagnostics")) };
  }
  return out;
}

const idParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The instance id.",
  schema: { type: "string" },
};

const query = (name: string, description: string, schema: Json = { type: "string" }) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

const migrationBody = {
  type: "object",
  additionalProperties: false,
  required: ["targetDeploymentId"],
  properties: {
    targetDeploymentId: { type: "string", description: "An active deployment's id." },
    targetProcessId: {
      type: "string",
      description:
        "Re-home into this process of the target (every live locus then needs a nodeMapping entry).",
    },
    nodeMapping: {
      type: "object",
      additionalProperties: { type: "string" },
      description: "Source node id to target node id; identity where silent.",
    },
    dryRun: { type: "boolean", default: false, description: "Validate and report; write nothing." },
    resume: {
      type: "boolean",
      default: false,
      description: "Bring a FAILED instance back on the target (re-drive the node it failed in).",
    },
  },
};

/** The document. */
export function adminOpenApi(): Json {
  const operate = "Requires the operate role (or admin).";
  return {
    openapi: "3.0.3",
    info: {
      title: "Sutra admin API",
      version: ENGINE_VERSION,
      description:
        "The operator's surface of a Sutra engine. Every route is gated: no key configured answers 503, a missing or wrong key 401, a key without the route's role 403.",
    },
    security: [{ apiKey: [] }, { oidc: [] }],
    paths: {
      "/admin/deployments": {
        get: {
          summary: "List deployments with their status and live/failed instance counts",
          description: operate,
          parameters: [query("status", "Only deployments with this status.", {
            type: "string",
            enum: DEPLOYMENT_STATUSES,
          })],
          responses: responses("The deployments, newest first.", {
            type: "object",
            properties: { deployments: { type: "array", items: ref("Deployment") } },
          }, { 400: "A query parameter is unknown or invalid (SUTRA.ADMIN.QUERY.*)." }),
        },
        post: {
          summary: "Deploy a sealed archive (body: the archive bytes)",
          description: "Requires the deploy role. `?async=true` answers 202 once verified.",
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary" } },
            },
          },
          responses: responses("Active (or unchanged).", { type: "object" }, {
            400: "The archive was refused (SUTRA.DEPLOY.*).",
            413: "The archive is over sutra.deployments.max-archive-bytes.",
          }),
        },
      },
      "/admin/deployments/{slotOrId}": {
        delete: {
          summary: "Drain a deployment by slot or id",
          description: "Requires the deploy role.",
          parameters: [{
            name: "slotOrId",
            in: "path",
            required: true,
            schema: { type: "string" },
          }],
          responses: responses("The deployment drains.", { type: "object" }, {
            404: "No active or draining deployment has that slot or id.",
          }),
        },
      },
      "/admin/deployments/{id}/processes/{process}/diagram": {
        get: {
          summary: "The BPMN a process was deployed from, with a generated layout when it has none",
          description: operate,
          parameters: ["id", "process"].map((name) => ({
            name,
            in: "path",
            required: true,
            schema: { type: "string" },
          })),
          responses: {
            200: {
              description: "The BPMN XML.",
              content: { "application/xml": { schema: { type: "string" } } },
            },
            ...Object.fromEntries(
              Object.entries(responses("", {}, {
                404: "No registered deployment serves that process.",
              })).filter(([status]) => status !== "200"),
            ),
          },
        },
      },
      "/admin/instances": {
        get: {
          summary: "Search instances, newest first, keyset-paginated",
          description: `${operate} Pass the answer's \`next\` as \`cursor\` for the next page.`,
          parameters: [
            query("process", "Process id."),
            query("status", "Status.", { type: "string", enum: SEARCH_STATUSES }),
            query("deployment", "Deployment id the instance is pinned to."),
            query("alias", "NAME=VALUE: an alias the instance holds or held."),
            query("startedAfter", "ISO-8601 instant (exclusive).", {
              type: "string",
              format: "date-time",
            }),
            query("startedBefore", "ISO-8601 instant (exclusive).", {
              type: "string",
              format: "date-time",
            }),
            query("failureCode", "The SUTRA.* code a FAILED instance carries."),
            query("cursor", "Opaque: the `next` of the previous page."),
            query("limit", "Page size.", {
              type: "integer",
              minimum: 1,
              maximum: MAX_PAGE,
              default: DEFAULT_PAGE,
            }),
          ],
          responses: responses("One page.", {
            type: "object",
            required: ["instances"],
            properties: {
              instances: { type: "array", items: ref("InstanceSummary") },
              next: { type: "string", description: "Absent on the last page." },
            },
          }, { 400: "A query parameter is unknown or invalid (SUTRA.ADMIN.QUERY.*)." }),
        },
      },
      "/admin/instances/{id}": {
        get: {
          summary: "Inspect an instance: variables (redacted), waits, aliases",
          description: operate,
          parameters: [idParameter],
          responses: responses("The instance.", { type: "object" }, { 404: "No such instance." }),
        },
      },
      "/admin/instances/{id}/history": {
        get: {
          summary: "The instance's audit journal",
          description: operate,
          parameters: [idParameter],
          responses: responses("The events.", { type: "object" }, { 404: "No such instance." }),
        },
      },
      "/admin/instances/by-alias/{name}/{value}": {
        get: {
          summary: "Live instances holding an alias value",
          description: operate,
          parameters: ["name", "value"].map((name) => ({
            name,
            in: "path",
            required: true,
            schema: { type: "string" },
          })),
          responses: responses("The holders.", {
            type: "object",
            properties: { instances: { type: "array", items: ref("InstanceSummary") } },
          }, { 404: "No live instance holds it." }),
        },
      },
      "/admin/instances/{id}/cancel": {
        post: {
          summary: "Terminate an instance",
          description: operate,
          parameters: [idParameter],
          responses: responses("Terminated.", { type: "object" }, {
            404: "No such instance.",
            409: "Claimed elsewhere, or already ended.",
          }),
        },
      },
      "/admin/instances/{id}/retry": {
        post: {
          summary:
            "Re-drive a FAILED instance at the node it failed in (a task with a fresh attempt budget)",
          description: operate,
          parameters: [idParameter],
          responses: responses("The instance waits for its retry, due at once.", {
            type: "object",
            properties: {
              instanceId: { type: "string" },
              status: { type: "string" },
              retrying: { type: "string" },
            },
          }, {
            404: "No such instance.",
            409:
              "Not FAILED, not re-drivable, claimed elsewhere or an alias conflict (SUTRA.ADMIN.RETRY.*).",
          }),
        },
      },
      "/admin/instances/{id}/variables": {
        patch: {
          summary: "Set root variables of a live or FAILED instance (typed, audited)",
          description:
            `${operate} Values are JSON; temporals ride one-key objects ({"@d": "2026-03-01"}).`,
          parameters: [idParameter],
          requestBody: {
            required: true,
            content: json({
              type: "object",
              required: ["variables"],
              additionalProperties: false,
              properties: { variables: { type: "object" } },
            }),
          },
          responses: responses("The names changed.", {
            type: "object",
            properties: {
              instanceId: { type: "string" },
              changed: { type: "array", items: { type: "string" } },
            },
          }, {
            400: "A value is invalid, transient or of the wrong declared type (SUTRA.ADMIN.*).",
            404: "No such instance.",
            409: "Claimed elsewhere, or the instance has ended.",
          }),
        },
      },
      "/admin/instances/{id}/migrate": {
        post: {
          summary: "Move one instance onto another deployment (dry run, resume)",
          description: "Requires the deploy role.",
          parameters: [idParameter],
          requestBody: { required: true, content: json(migrationBody) },
          responses: responses("Migrated (or, with dryRun, valid).", ref("MigrationReport"), {
            400: "Malformed request (SUTRA.ADMIN.BODY.INVALID).",
            404: "No such instance.",
            409: "Claimed elsewhere (SUTRA.ADMIN.MIGRATE.CLAIM_HELD).",
            422: "Refused; every violation listed (SUTRA.ADMIN.MIGRATE.*).",
            500: "The commit failed and was rolled back (SUTRA.ADMIN.MIGRATE.COMMIT_FAILED).",
          }),
        },
      },
      "/admin/instances/migrate": {
        post: {
          summary: "Migrate a filtered population, one transaction per instance",
          description:
            "Requires the deploy role. Answers 200 with a per-instance outcome even when every instance refused.",
          requestBody: {
            required: true,
            content: json({
              ...migrationBody,
              required: ["targetDeploymentId", "filter"],
              properties: {
                ...migrationBody.properties,
                filter: {
                  type: "object",
                  required: ["sourceDeploymentId"],
                  additionalProperties: false,
                  properties: {
                    sourceDeploymentId: { type: "string" },
                    processId: { type: "string" },
                    status: { type: "string", enum: ["SUSPENDED", "FAILED"] },
                    includeTerminal: { type: "boolean", default: false },
                  },
                },
                limit: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
              },
            }),
          },
          responses: responses("The batch report.", { type: "object" }, {
            400: "Malformed or self-contradicting request.",
            422: "Batch-level refusal: target not active, or the same as the source.",
          }),
        },
      },
      "/admin/incidents": {
        get: {
          summary:
            "What needs an operator: FAILED instances, poisoned deliveries, exhausted external tasks, lost store writes",
          description: operate,
          parameters: [
            query("kind", "Only this kind.", { type: "string", enum: INCIDENT_KINDS }),
            query("limit", "How many, newest first.", {
              type: "integer",
              minimum: 1,
              maximum: MAX_PAGE * 2,
              default: 100,
            }),
          ],
          responses: responses("The incidents, newest first.", {
            type: "object",
            properties: { incidents: { type: "array", items: ref("Incident") } },
          }, { 400: "A query parameter is unknown or invalid (SUTRA.ADMIN.QUERY.*)." }),
        },
      },
      "/admin/incidents/store-write/{id}": {
        delete: {
          summary: "Settle a store-write incident: its lost writes were dealt with by hand",
          description: operate,
          parameters: [{
            name: "id",
            in: "path",
            required: true,
            description: "The incident's id (its redo row).",
            schema: { type: "string" },
          }],
          responses: responses("Resolved.", {
            type: "object",
            properties: { resolved: { type: "string" } },
          }, { 404: "No store-write incident has that id (SUTRA.ADMIN.INCIDENT.UNKNOWN)." }),
        },
      },
      "/admin/tasks": {
        get: {
          summary: "User tasks waiting for a person, with how to complete each through its channel",
          description: operate,
          parameters: [query("limit", "How many, oldest first.", {
            type: "integer",
            minimum: 1,
            maximum: MAX_PAGE * 2,
            default: 100,
          })],
          responses: responses("The tasks.", {
            type: "object",
            properties: {
              tasks: {
                type: "array",
                items: {
                  type: "object",
                  properties: {
                    instanceId: { type: "string" },
                    node: { type: "string" },
                    name: { type: "string", nullable: true },
                    channel: { type: "string" },
                    method: { type: "string" },
                    path: { type: "string" },
                    auth: { type: "object", nullable: true },
                    schema: { type: "object", nullable: true },
                    prefill: { type: "object", additionalProperties: { type: "string" } },
                    waitingSince: { type: "string", format: "date-time" },
                  },
                },
              },
            },
          }, { 400: "A query parameter is unknown or invalid (SUTRA.ADMIN.QUERY.*)." }),
        },
      },
      "/admin/tenants/{tenant}/usage": {
        get: {
          summary:
            "A tenant's use of its quotas: live instances (fleet) and messages in the last minute (this replica)",
          description: operate,
          parameters: [{
            name: "tenant",
            in: "path",
            required: true,
            description: "The tenant label of the packages.",
            schema: { type: "string" },
          }],
          responses: responses("The usage; a limit the tenant does not have is left out.", {
            type: "object",
            required: ["tenant", "liveInstances", "inboundLastMinute"],
            properties: {
              tenant: { type: "string" },
              liveInstances: { type: "integer" },
              maxConcurrentInstances: { type: "integer" },
              inboundLastMinute: { type: "integer" },
              maxInboundRatePerMinute: { type: "integer" },
            },
          }),
        },
      },
      "/admin/openapi.json": {
        get: {
          summary: "This document",
          description: operate,
          responses: responses("The OpenAPI document.", { type: "object" }),
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "The header is sutra.admin.auth.header (default x-api-key).",
        },
        oidc: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "An OIDC access token, when sutra.admin.oidc.* is configured; roles from " +
            "sutra.admin.oidc.roles-claim mapped by sutra.admin.oidc.role-map.",
        },
      },
      schemas: {
        Diagnostic: {
          type: "object",
          required: ["code", "severity", "message"],
          properties: {
            code: { type: "string", example: "SUTRA.ADMIN.QUERY.INVALID" },
            severity: { type: "string", enum: ["ERROR", "WARNING", "INFO"] },
            message: { type: "string" },
            attributes: { type: "object" },
          },
        },
        Diagnostics: {
          type: "object",
          required: ["diagnostics"],
          properties: { diagnostics: { type: "array", items: ref("Diagnostic") } },
        },
        InstanceSummary: {
          type: "object",
          properties: {
            instanceId: { type: "string" },
            tenant: { type: "string" },
            deploymentId: { type: "string" },
            processId: { type: "string" },
            status: { type: "string" },
            failure: {
              type: "object",
              nullable: true,
              properties: {
                code: { type: "string" },
                detail: { type: "string", nullable: true },
                node: { type: "string", nullable: true },
              },
            },
            createdAt: { type: "string", format: "date-time" },
            updatedAt: { type: "string", format: "date-time" },
            endedAt: { type: "string", format: "date-time", nullable: true },
          },
        },
        Incident: {
          type: "object",
          properties: {
            kind: { type: "string", enum: INCIDENT_KINDS },
            id: { type: "string" },
            tenant: { type: "string" },
            instanceId: { type: "string", nullable: true },
            deploymentId: { type: "string", nullable: true },
            code: { type: "string" },
            message: { type: "string", nullable: true },
            node: { type: "string", nullable: true },
            at: { type: "string", format: "date-time" },
            destination: { type: "string" },
          },
        },
        Deployment: {
          type: "object",
          properties: {
            deploymentId: { type: "string" },
            tenant: { type: "string" },
            slot: { type: "string" },
            labels: { type: "object", additionalProperties: { type: "string" } },
            status: { type: "string", enum: DEPLOYMENT_STATUSES },
            instances: {
              type: "object",
              properties: { live: { type: "integer" }, failed: { type: "integer" } },
            },
          },
        },
        MigrationReport: {
          type: "object",
          properties: {
            instanceId: { type: "string" },
            outcome: {
              type: "string",
              enum: ["MIGRATED", "VALID", "REFUSED", "BOUNCED", "FAILED"],
            },
            dryRun: { type: "boolean" },
            resumed: { type: "boolean" },
            source: { type: "object" },
            target: { type: "object" },
            diagnostics: { type: "array", items: ref("Diagnostic") },
          },
        },
      },
    },
  };
}
