/**
 * Per-tenant admission quotas, checked once per inbound message before it
 * is captured or run (`dispatch/intake.ts`):
 *
 * - `maxConcurrentInstances` (`sutra.tenant.max-concurrent-instances`): a
 *   message that would start an instance is refused while the tenant holds
 *   that many RUNNING or SUSPENDED instances, counted in the engine database
 *   and so shared by every replica. Ending instances frees their slots.
 * - `maxInboundRatePerMinute` (`sutra.tenant.max-inbound-rate-per-minute`):
 *   each replica admits at most that many messages of the tenant in any
 *   sliding 60 seconds, counted in its own memory ({@link RateWindow}).
 *
 * A refusal is `overloaded` (HTTP 429, a broker requeue) and its diagnostic
 * carries `retryAfterSeconds`, which the transports turn into `Retry-After`
 * or a delay before the requeue.
 *
 * @module
 */
import type { Clock } from "../../core/clock.ts";
import type { Config } from "../../core/config.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { DeliveryOutcome } from "../../core/transport.ts";
import type { Queryable } from "../../persistence/mod.ts";
import { TENANT_MAX_CONCURRENT_INSTANCES, TENANT_MAX_INBOUND_RATE } from "../settings.ts";
import { RateWindow } from "./rate_window.ts";
import { parseTenantLimits } from "./tenant_limits.ts";

/** The diagnostic attribute naming how long to wait before trying again, in whole seconds. */
export const RETRY_AFTER_ATTRIBUTE = "retryAfterSeconds";

/** How long a caller refused for concurrency is told to wait: slots free as instances end. */
const CONCURRENCY_RETRY_SECONDS = 1;

/** Options for {@link TenantQuotas}. */
export interface TenantQuotasOptions {
  /** The engine database, where live instances are counted. */
  readonly db: Pick<Queryable, "query">;
  readonly clock: Clock;
  /** Live-instance caps by tenant; a tenant not in it is unlimited. */
  readonly maxConcurrentInstances?: ReadonlyMap<string, number>;
  /** Messages per sliding minute by tenant, per replica; a tenant not in it is unlimited. */
  readonly maxInboundRatePerMinute?: ReadonlyMap<string, number>;
}

/** What a tenant uses now against its quotas (`GET /admin/tenants/{tenant}/usage`). */
export interface TenantUsage {
  readonly tenant: string;
  /** RUNNING and SUSPENDED instances in the engine database (every replica's). */
  readonly liveInstances: number;
  /** Absent when the tenant has no cap. */
  readonly maxConcurrentInstances?: number;
  /** Messages this replica admitted in the last 60 seconds. */
  readonly inboundLastMinute: number;
  /** Absent when the tenant has no rate limit. */
  readonly maxInboundRatePerMinute?: number;
}

/** The quotas of every tenant, with this replica's rate windows. */
export class TenantQuotas {
  readonly #o: TenantQuotasOptions;
  readonly #windows = new Map<string, RateWindow>();

  constructor(options: TenantQuotasOptions) {
    this.#o = options;
  }

  /** The quotas `sutra.tenant.max-concurrent-instances` and `…max-inbound-rate-per-minute` set. */
  static fromConfig(
    config: Config,
    options: Pick<TenantQuotasOptions, "db" | "clock">,
  ): TenantQuotas {
    return new TenantQuotas({
      ...options,
      maxConcurrentInstances: limitsOf(config.get(TENANT_MAX_CONCURRENT_INSTANCES)),
      maxInboundRatePerMinute: limitsOf(config.get(TENANT_MAX_INBOUND_RATE)),
    });
  }

  /**
   * Admits one inbound message of `tenant` (`starts`: it would start an
   * instance), counting it in the rate window; answers the refusal when a
   * quota is full. A message refused for concurrency is not counted.
   */
  async admit(tenant: string, starts: boolean): Promise<DeliveryOutcome | undefined> {
    const rate = this.#o.maxInboundRatePerMinute?.get(tenant);
    const now = this.#o.clock.now();
    const window = rate === undefined ? undefined : this.#window(tenant, rate);
    const verdict = window?.admit(now);
    if (verdict && "retryAfterMs" in verdict) {
      return overloaded(
        "SUTRA.INBOUND.TENANT_RATE_LIMIT",
        `tenant '${tenant}' sent ${rate} message(s) to this replica in the last minute, its maxInboundRatePerMinute`,
        { tenant, maxInboundRatePerMinute: rate!, retryAfterMs: verdict.retryAfterMs },
      );
    }
    const cap = starts ? this.#o.maxConcurrentInstances?.get(tenant) : undefined;
    if (cap === undefined) return undefined;
    try {
      if (await this.#live(tenant) < cap) return undefined;
    } catch (error) {
      window?.withdraw(now);
      throw error;
    }
    window?.withdraw(now);
    return overloaded(
      "SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT",
      `tenant '${tenant}' already has ${cap} live instance(s), its maxConcurrentInstances`,
      { tenant, maxConcurrentInstances: cap, retryAfterMs: CONCURRENCY_RETRY_SECONDS * 1000 },
    );
  }

  /** The tenant's current usage against its quotas. */
  async usage(tenant: string): Promise<TenantUsage> {
    const cap = this.#o.maxConcurrentInstances?.get(tenant);
    const rate = this.#o.maxInboundRatePerMinute?.get(tenant);
    return {
      tenant,
      liveInstances: await this.#live(tenant),
      ...(cap === undefined ? {} : { maxConcurrentInstances: cap }),
      inboundLastMinute: this.#windows.get(tenant)?.count(this.#o.clock.now()) ?? 0,
      ...(rate === undefined ? {} : { maxInboundRatePerMinute: rate }),
    };
  }

  #window(tenant: string, rate: number): RateWindow {
    let window = this.#windows.get(tenant);
    if (!window) this.#windows.set(tenant, window = new RateWindow(rate));
    return window;
  }

  async #live(tenant: string): Promise<number> {
    const { rows } = await this.#o.db.query<{ n: number }>(
      `select count(*)::int as n from instances
        where tenant = $1 and status in ('RUNNING', 'SUSPENDED')`,
      [tenant],
    );
    return rows[0].n;
  }
}

function limitsOf(text: string | undefined): ReadonlyMap<string, number> | undefined {
  if (text === undefined) return undefined;
  const parsed = parseTenantLimits(text);
  // The key's own validation refused anything else at load.
  return typeof parsed === "string" ? undefined : parsed;
}

function overloaded(
  code: string,
  message: string,
  facts: { tenant: string; retryAfterMs: number } & Record<string, string | number>,
): DeliveryOutcome {
  const { retryAfterMs, ...attributes } = facts;
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    kind: "refused",
    refusal: "overloaded",
    diagnostics: [diagnostic(code, `${message}; retry in ${seconds} s`, {
      attributes: { ...attributes, [RETRY_AFTER_ATTRIBUTE]: seconds },
    })],
  };
}

/** The whole seconds a refusal's diagnostic asks the caller to wait, when it says. */
export function retryAfterSeconds(cause: Diagnostic | undefined): number | undefined {
  const value = cause?.attributes?.[RETRY_AFTER_ATTRIBUTE];
  return typeof value === "number" ? value : undefined;
}
