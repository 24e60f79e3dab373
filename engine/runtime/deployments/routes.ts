/**
 * The deployment HTTP surface: `POST /admin/deployments` (archive bytes in
 * the body, `?async=true` for 202-and-poll, `&callback=<url>` or
 * `&notify=<destination>` for a completion event), `DELETE
 * /admin/deployments/{slotOrId}` behind the admin gate, and the operate
 * routes `GET /sutra/deployments/{id}` and
 * `GET /sutra/deployments/{id}/openapi.json` (the OpenAPI document of a
 * live deployment's HTTP channels, as `sutra openapi` prints it).
 *
 * @module
 */
import { diagnostic } from "../../core/mod.ts";
import { collectSinks, destinationScheme, transports } from "../../core/transport.ts";
import { openApiDocument } from "../../package/openapi.ts";
import type { AdminGate } from "../admin_auth.ts";
import {
  diagnosticResponse,
  jsonResponse,
  readCappedBody,
  type RouteHandler,
  type Router,
} from "../http_router.ts";
import type { DeploymentService } from "./service.ts";
import { DeploymentError } from "./service.ts";

/** What {@link addDeploymentRoutes} needs. */
export interface DeploymentRoutesOptions {
  readonly service: Pick<DeploymentService, "deploy" | "undeploy" | "status" | "registry">;
  readonly admin: AdminGate;
  /** Bodies larger than this are refused with 413 before being read whole. */
  readonly maxArchiveBytes: number;
}

/** Mounts the deployment routes on the engine's router. */
export function addDeploymentRoutes(router: Router, options: DeploymentRoutesOptions): void {
  const { service, admin } = options;
  router.add(
    "POST",
    "/admin/deployments",
    admin.requireAdmin(
      refusals(async (request) => {
        const params = new URL(request.url).searchParams;
        const notify = requestedDestinations(params);
        const bytes = await readCapped(request, options.maxArchiveBytes);
        if (bytes instanceof Response) return bytes;
        const result = await service.deploy(bytes, {
          async: params.get("async") === "true",
          notify,
        });
        if (result.phase === "Pending") {
          return jsonResponse(202, {
            deploymentId: result.deploymentId,
            phase: "Pending",
            slot: result.slot,
            poll: `/sutra/deployments/${result.deploymentId}`,
          }, { location: `/sutra/deployments/${result.deploymentId}` });
        }
        return jsonResponse(200, {
          deploymentId: result.deploymentId,
          phase: "Active",
          slot: result.slot,
          labels: result.labels,
          unchanged: result.unchanged,
          drained: result.drained,
          ...(result.diagnostics.length > 0 ? { diagnostics: result.diagnostics } : {}),
        });
      }),
      "deploy",
    ),
  );
  router.add(
    "DELETE",
    "/admin/deployments/{slotOrId}",
    admin.requireAdmin(
      refusals(async (_request, params) =>
        jsonResponse(200, await service.undeploy(params.slotOrId))
      ),
      "deploy",
    ),
  );
  router.add("GET", "/sutra/deployments/{id}", async (_request, params) => {
    const status = await service.status(params.id);
    if (status) return jsonResponse(200, status);
    return unknownDeployment(params.id);
  });
  // Only a deployment this replica serves (active or draining) has channels to describe.
  router.add("GET", "/sutra/deployments/{id}/openapi.json", (_request, params) => {
    const deployment = service.registry.get(params.id);
    if (!deployment) return Promise.resolve(unknownDeployment(params.id, " being served"));
    return Promise.resolve(jsonResponse(
      200,
      openApiDocument(deployment.package, { deploymentId: deployment.deploymentId }),
    ));
  });
}

function unknownDeployment(id: string, qualifier = ""): Response {
  return diagnosticResponse(404, [diagnostic(
    "SUTRA.DEPLOY.UNKNOWN",
    `no deployment${qualifier} has id '${id}'`,
    { attributes: { deployment: id } },
  )]);
}

/** Answers a refusal with its own status instead of the router's generic 400. */
function refusals(handler: RouteHandler): RouteHandler {
  return async (request, params) => {
    try {
      return await handler(request, params);
    } catch (error) {
      if (error instanceof DeploymentError) {
        return diagnosticResponse(error.status, error.diagnostics);
      }
      throw error;
    }
  };
}

/** Reads the body, stopping as soon as it passes the cap. */
async function readCapped(request: Request, cap: number): Promise<Uint8Array | Response> {
  return await readCappedBody(request, cap) ??
    diagnosticResponse(413, [diagnostic(
      "SUTRA.DEPLOY.ARCHIVE_TOO_LARGE",
      `the archive exceeds ${cap} bytes (sutra.deployments.max-archive-bytes)`,
      { attributes: { limit: cap } },
    )]);
}

/** The query parameter naming a webhook for the completion event. */
const CALLBACK_PARAM = "callback";
/** The query parameter naming any outbound destination for it (a queue, a directory, …). */
const NOTIFY_PARAM = "notify";

/**
 * True when an outbox row to `scheme` has a sink in this build: a sink a
 * linked transport registers, or one a running transport of that name
 * brings along (`local`).
 */
function served(scheme: string): boolean {
  return collectSinks(transports).has(scheme) || transports.has(scheme);
}

/**
 * Reads the completion-event destinations of a deploy request: every
 * `callback` must be an absolute http(s) URL; every `notify` a destination
 * whose scheme a linked transport delivers to. Every problem is reported at
 * once.
 */
function requestedDestinations(params: URLSearchParams): string[] {
  const problems = [];
  const destinations: string[] = [];
  for (const value of params.getAll(CALLBACK_PARAM)) {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url && (url.protocol === "http:" || url.protocol === "https:")) {
      destinations.push(url.toString());
    } else {
      problems.push(diagnostic(
        "SUTRA.DEPLOY.CALLBACK_INVALID",
        `callback '${value}' is not an absolute http:// or https:// URL`,
        { attributes: { parameter: CALLBACK_PARAM, value } },
      ));
    }
  }
  for (const value of params.getAll(NOTIFY_PARAM)) {
    const destination = value.trim();
    const scheme = destinationScheme(destination);
    if (scheme !== undefined && destination.length > scheme.length + 1 && served(scheme)) {
      destinations.push(destination);
      continue;
    }
    const schemes = [...new Set([...collectSinks(transports).names(), ...transports.names()])]
      .sort().join(", ");
    problems.push(diagnostic(
      "SUTRA.DEPLOY.NOTIFY_UNSUPPORTED",
      scheme === undefined || destination.length <= scheme.length + 1
        ? `notify '${value}' is not a destination (<scheme>:<address>, e.g. file:///var/out)`
        : `notify '${value}' uses scheme '${scheme}', which no transport linked into this ` +
          `build delivers to (schemes: ${schemes})`,
      { attributes: { parameter: NOTIFY_PARAM, value } },
    ));
  }
  if (problems.length > 0) throw new DeploymentError(400, problems);
  return destinations;
}
