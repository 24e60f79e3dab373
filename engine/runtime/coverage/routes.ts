/**
 * The coverage ops on the admin surface, behind the same fail-closed gate
 * as the rest of `/admin/*` (role `operate`):
 *
 * | route                                       | op                |
 * | ------------------------------------------- | ----------------- |
 * | `GET  /admin/coverage/{deployment}`         | `coverage:report` |
 * | `POST /admin/coverage/{deployment}/reset`   | `coverage:reset`  |
 *
 * `{deployment}` is a deployment id or a slot (`tenant--module--version`)
 * of an active or draining deployment. A deployment whose coverage store
 * is missing or unusable answers 503 with
 * `SUTRA.CONFIG.COVERAGE.STORE_MISSING` naming why, never a count.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import type { AdminGate } from "../admin_auth.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { diagnosticResponse, jsonResponse, type Router } from "../http_router.ts";
import type { CoverageService } from "./service.ts";

/** What the coverage routes need. */
export interface CoverageRoutesOptions {
  readonly registry: DeploymentRegistry;
  readonly admin: AdminGate;
  readonly coverage: CoverageService;
}

/** Mounts `coverage:report` and `coverage:reset`. */
export function addCoverageRoutes(router: Router, o: CoverageRoutesOptions): void {
  const operate = o.admin.requireAdmin.bind(o.admin);
  const op = (work: (d: ActiveDeployment) => Promise<unknown>) =>
    operate(async (_request, { deployment }) => {
      const found = o.registry.list().find((d) =>
        d.deploymentId === deployment || d.slot === deployment
      );
      if (!found) {
        return diagnosticResponse(404, [
          diagnostic(
            "SUTRA.DEPLOY.UNKNOWN",
            `no active or draining deployment has id or slot '${deployment}'`,
            { attributes: { deployment } },
          ),
        ]);
      }
      try {
        return jsonResponse(200, await work(found));
      } catch (error) {
        if (error instanceof DiagnosticError) return diagnosticResponse(503, error.diagnostics);
        throw error;
      }
    }, "operate");
  router.add("GET", "/admin/coverage/{deployment}", op((d) => o.coverage.report(d)));
  router.add("POST", "/admin/coverage/{deployment}/reset", op((d) => o.coverage.reset(d)));
}
