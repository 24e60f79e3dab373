/**
 * Leases: one row per singleton role (sweeps, retention, …) naming the
 * replica that holds it until `expires_at`. A replica renews its own lease
 * and takes over an expired one; nobody waits on a lease.
 *
 * @module
 */
import type { Queryable } from "../persistence/mod.ts";

/** Lease time-to-live. */
export const LEASE_TTL_MS = 30_000;

/** Identifies a lease holder. */
export interface LeaseKey {
  readonly role: string;
  readonly owner: string;
  readonly tenant?: string;
}

/** Takes or renews the lease; true when `owner` holds it afterwards. */
export async function tryLease(
  db: Queryable,
  key: LeaseKey,
  ttlMs: number = LEASE_TTL_MS,
): Promise<boolean> {
  const { rows } = await db.query<{ owner: string }>(
    `insert into leases (tenant, role, owner, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4))
     on conflict (tenant, role) do update
       set owner = excluded.owner, expires_at = excluded.expires_at,
           acquired_at = case when leases.owner = excluded.owner then leases.acquired_at else now() end
       where leases.owner = excluded.owner or leases.expires_at < now()
     returning owner`,
    [key.tenant ?? "default", key.role, key.owner, ttlMs / 1000],
  );
  return rows.length === 1;
}

/** Gives the lease up (on shutdown), so another replica need not wait for it to expire. */
export async function releaseLease(db: Queryable, key: LeaseKey): Promise<void> {
  await db.query("delete from leases where tenant = $1 and role = $2 and owner = $3", [
    key.tenant ?? "default",
    key.role,
    key.owner,
  ]);
}
