/**
 * Deploy completion events: a caller that asked for them (`callback=` on
 * `POST /admin/deployments`) gets one CloudEvent per destination when the
 * deploy settles — `com.sutra.deployment.activated` or
 * `com.sutra.deployment.failed` — as an outbox row written in the same
 * transaction that settles it, so the ordinary outbox worker delivers it
 * with retries and one idempotency key.
 *
 * @module
 */
import { newId } from "../../core/mod.ts";
import { type Queryable, valuesList } from "../../persistence/mod.ts";
import { takeNotify } from "./store.ts";

/** The deploy a completion event is about. */
export interface SettledDeploy {
  readonly tenant: string;
  readonly deploymentId: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** How it settled. */
export type Settlement =
  | { readonly status: "Active" }
  | {
    readonly status: "Failed";
    readonly error: { readonly code: string; readonly detail: string };
  };

/**
 * Queues the completion event of `deploy` for `destinations` plus those
 * recorded on its pending row (taken, so they are sent once).
 */
export async function queueCompletionEvents(
  q: Queryable,
  deploy: SettledDeploy,
  settlement: Settlement,
  destinations: readonly string[] = [],
): Promise<void> {
  const recorded = await takeNotify(q, deploy);
  const all = [...new Set([...destinations, ...recorded])];
  if (all.length === 0) return;
  const type = settlement.status === "Active"
    ? "com.sutra.deployment.activated"
    : "com.sutra.deployment.failed";
  const rows = all.map((destination) => {
    const id = newId();
    const event = {
      specversion: "1.0",
      id,
      source: "/sutra/deployments",
      type,
      subject: deploy.deploymentId,
      time: new Date().toISOString(),
      datacontenttype: "application/json",
      data: {
        deploymentId: deploy.deploymentId,
        slot: deploy.slot,
        ...(deploy.labels.version === undefined ? {} : { revision: deploy.labels.version }),
        status: settlement.status,
        ...(settlement.status === "Failed" ? { error: settlement.error } : {}),
      },
    };
    return [
      deploy.tenant,
      id,
      destination,
      {},
      new TextEncoder().encode(JSON.stringify(event)),
      "application/cloudevents+json",
      `${type}:${deploy.deploymentId}:${destination}`,
    ];
  });
  const params: unknown[] = [];
  const values = valuesList(params, rows);
  await q.query(
    `insert into outbox (tenant, outbox_id, destination, headers, body, content_type, idempotency_key)
     values ${values}`,
    params,
  );
}
