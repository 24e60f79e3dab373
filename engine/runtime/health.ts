/**
 * `GET /sutra/health/live` and `GET /sutra/health/ready`. Liveness says the
 * process answers and every execution lane still works; readiness runs every
 * registered check and answers 503 when any is down, with each check's data
 * so an operator can see why. A check that throws is reported DOWN with its
 * code and an incident id only: the error's own text (a database's, say)
 * goes to the log under that id.
 *
 * A dead lane fails both probes at once: liveness answers 503 with the
 * lanes in `data.deadLanes` (restart the process: the instances hashed to
 * that lane have no other home in it), and readiness is DOWN with a
 * `lanes` check saying the same (listed only then), so no new traffic is
 * routed here meanwhile.
 *
 * @module
 */
import { jsonResponse, type Router, withheld } from "./http_router.ts";
import { diagnostic, type Logger } from "../core/mod.ts";
import { errorMessage } from "../core/errors.ts";

/** The outcome of one readiness check. */
export interface CheckResult {
  readonly status: "UP" | "DOWN";
  readonly data?: Record<string, unknown>;
}

/** One named readiness check. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<CheckResult>;
}

/** Options for {@link addHealthRoutes}. */
export interface HealthOptions {
  /** The indexes of the execution lanes that stopped working (none when absent). */
  readonly deadLanes?: () => readonly number[];
}

/** Adds the two health routes to a router; `logger` receives what a failed check withholds. */
export function addHealthRoutes(
  router: Router,
  checks: readonly ReadinessCheck[],
  logger: Logger,
  options: HealthOptions = {},
): void {
  const dead = () => [...(options.deadLanes?.() ?? [])].sort((a, b) => a - b);
  router.add("GET", "/sutra/health/live", () => {
    const deadLanes = dead();
    if (deadLanes.length === 0) return jsonResponse(200, { status: "UP" });
    return jsonResponse(503, { status: "DOWN", data: { deadLanes } });
  });
  router.add("GET", "/sutra/health/ready", async () => {
    // Listed only while a lane is dead, so a healthy answer keeps its usual checks.
    const deadLanes = dead();
    const all = deadLanes.length === 0 ? checks : [...checks, {
      name: "lanes",
      check: () => Promise.resolve({ status: "DOWN" as const, data: { deadLanes } }),
    }];
    const results = await Promise.all(all.map(async (c) => {
      try {
        return { name: c.name, ...(await c.check()) };
      } catch (error) {
        const [d] = withheld(
          logger,
          [diagnostic("SUTRA.RUNTIME.UNEXPECTED", errorMessage(error))],
          { check: c.name },
        );
        return {
          name: c.name,
          status: "DOWN" as const,
          data: { code: d.code, error: d.message, incidentId: d.attributes?.incidentId },
        };
      }
    }));
    const up = results.every((r) => r.status === "UP");
    return jsonResponse(up ? 200 : 503, { status: up ? "UP" : "DOWN", checks: results });
  });
}

/**
 * A readiness check that stays DOWN until {@link ReadinessGate.settle} is
 * called: work the process must finish before it takes traffic (the
 * examples `deno task start` deploys after boot, say).
 */
export class ReadinessGate implements ReadinessCheck {
  #result: CheckResult;

  /** A gate named `name`, DOWN with `pending` as its data until settled. */
  constructor(readonly name: string, pending: Record<string, unknown> = {}) {
    this.#result = { status: "DOWN", data: { ...pending, settled: false } };
  }

  /** Settles the gate: UP, or DOWN for good when `failed` is set. */
  settle(data: Record<string, unknown> = {}, failed = false): void {
    this.#result = { status: failed ? "DOWN" : "UP", data: { ...data, settled: true } };
  }

  /** The gate's current result. */
  check(): Promise<CheckResult> {
    return Promise.resolve(this.#result);
  }
}
