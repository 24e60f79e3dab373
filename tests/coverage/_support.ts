/**
 * Coverage stores on every database the data-store contract runs on
 * (PGlite always; PostgreSQL and MariaDB/MySQL when configured): each test
 * opens the reserved store on the target and works under a deployment id
 * of its own, so parallel files never share rows.
 *
 * @module
 */
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { type CoverageStore, coverageStoreProviders } from "../../engine/runtime/coverage/mod.ts";
import "../../io/datastores/mod.ts";
import { REQUIRE_SERVICES_ENV, servicesRequired } from "../support/test_database.ts";
import { targets } from "../datastores/_providers.ts";

/** Opens the reserved coverage store at `url`. */
export async function openCoverageStore(url: string): Promise<CoverageStore> {
  return await coverageStoreProviders.get("sql")!.open(
    { name: "coverage", type: "sql", settings: { "url-ref": url } },
    { resolve: defaultResolveContext({}) },
  );
}

/** A deployment id no other test uses (64 hex characters, like a real one). */
export function freshDeploymentId(): string {
  return crypto.randomUUID().replaceAll("-", "").repeat(2);
}

/**
 * Registers `fn` once per database target (`name [pglite]`, …); an
 * unconfigured server is skipped, or fails under
 * `SUTRA_TEST_REQUIRE_SERVICES=1`.
 */
export function eachCoverageTarget(
  name: string,
  fn: (url: string) => Promise<void>,
  options: {
    readonly serversOnly?: boolean;
    /** Give PGlite a directory, so two opens reach one database (memory ones never do). */
    readonly reopenable?: boolean;
    /**
     * Skip the timer and resource checks: a burst of concurrent statements
     * makes the driver open connections whose timers it may still hold for a
     * moment after the store closed (seen once in a few CI runs).
     */
    readonly driverTimers?: boolean;
  } = {},
): void {
  for (const target of targets()) {
    if (options.serversOnly && target.label === "pglite") continue;
    const title = `${name} [${target.label}]`;
    const url = target.url;
    if (!url) {
      Deno.test({
        name: title,
        ignore: !servicesRequired(),
        fn: () => {
          throw new Error(`${target.env} is not set, and ${REQUIRE_SERVICES_ENV}=1 requires it`);
        },
      });
      continue;
    }
    if (target.label !== "pglite" || !options.reopenable) {
      const lenient = options.driverTimers ? { sanitizeOps: false, sanitizeResources: false } : {};
      Deno.test({ name: title, ...lenient, fn: () => fn(url) });
      continue;
    }
    Deno.test(title, async () => {
      const dir = await Deno.makeTempDir({ prefix: "sutra-coverage-" });
      try {
        await fn(`pglite:${dir}`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
