/**
 * The web console at `/console`, off unless `sutra.console.enabled=true`:
 * an instance list with filters, an instance page with its diagram (the
 * bpmn-js viewer) marking where tokens wait, what has completed and where it
 * failed, its variables (redacted as everywhere) and history, the incidents
 * with retry, and the deployments.
 *
 * The console is a static page and its scripts, served from the engine's
 * own modules (the viewer is vendored into `assets/vendored.ts` by `deno
 * task console:assets`; nothing is fetched from a CDN, so it works
 * air-gapped, and a compiled binary carries it). The page holds no data:
 * everything it shows comes from the `/admin/*` API, through the same gate,
 * with the key the operator types in (kept in the tab's session storage).
 * A strict Content-Security-Policy allows scripts and styles from the
 * engine only.
 *
 * @module
 */
import { defineKey } from "../../core/mod.ts";
import { diagnostic } from "../../core/diagnostic.ts";
import type { AdminGate } from "../admin_auth.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import { diagnosticResponse, type Router } from "../http_router.ts";
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from "./console_app.ts";
import { withDiagram } from "./layout.ts";
import { VENDORED } from "./assets/vendored.ts";

/** Turns the web console on. */
export const CONSOLE_ENABLED = defineKey({
  key: "sutra.console.enabled",
  type: "boolean",
  default: false,
  description:
    "Serve the web console at /console (its data comes from the gated /admin/* API); off by default.",
});

/** What the console routes need. */
export interface ConsoleOptions {
  readonly registry: DeploymentRegistry;
  readonly admin: AdminGate;
}

const POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

function page(body: string, type: string): Response {
  return new Response(body, {
    headers: {
      "content-type": type,
      "content-security-policy": POLICY,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    },
  });
}

/** Mounts `/console` and its scripts, and the diagram route the instance page reads. */
export function addConsoleRoutes(router: Router, o: ConsoleOptions): void {
  router.add("GET", "/console", () => page(CONSOLE_HTML, "text/html; charset=utf-8"));
  router.add("GET", "/console/app.js", () => page(CONSOLE_JS, "text/javascript; charset=utf-8"));
  router.add("GET", "/console/app.css", () => page(CONSOLE_CSS, "text/css; charset=utf-8"));
  router.add("GET", "/console/vendor/{name}", (_request, { name }) => {
    const file = Object.hasOwn(VENDORED, name) ? VENDORED[name] : undefined;
    if (file === undefined) {
      return diagnosticResponse(404, [
        diagnostic("SUTRA.HTTP.NOT_FOUND", `the console has no file '${name}'`),
      ]);
    }
    return page(file.body, file.type);
  });
  router.add(
    "GET",
    "/admin/deployments/{id}/processes/{process}/diagram",
    o.admin.requireAdmin(
      (_request, { id, process }) => diagram(o.registry, id, process),
      "operate",
    ),
  );
}

/** The BPMN XML a process of a registered deployment was deployed from. */
function diagram(registry: DeploymentRegistry, id: string, process: string): Response {
  const deployment = registry.get(id);
  const plan = deployment?.plans.get(process);
  const file = plan &&
    deployment!.package.bpmn.find((b) =>
      b.result.definitions?.processes.some((p) => p.id === process)
    );
  const bytes = file && deployment!.package.files.get(file.artifact.path);
  if (!bytes) {
    return diagnosticResponse(404, [
      diagnostic(
        "SUTRA.RUNTIME.INSTANCE.UNKNOWN",
        `no registered deployment ${id} serves a process '${process}'`,
        { attributes: { deploymentId: id, process } },
      ),
    ]);
  }
  const xml = new TextDecoder().decode(bytes);
  return new Response(withDiagram(xml, plan.processById.get(process)!), {
    headers: { "content-type": "application/xml; charset=utf-8" },
  });
}
