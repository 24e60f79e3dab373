/**
 * `GET /admin/tasks`: the user tasks waiting for a person — a `userTask`
 * parked on a message that arrives on an HTTP channel, like the approval
 * hold's decision. Each task says how to complete it through that channel
 * (method, path, the credential header the channel checks), the JSON
 * Schema of the message when the channel's codec is a package JSON Schema,
 * and the values its correlation aliases must carry, so the console can
 * build the form and send the message itself: no second API.
 *
 * @module
 */
import type { PlanNode } from "../../bpmn/mod.ts";
import type { Queryable } from "../../persistence/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";

/** One task waiting for a person. */
export interface PersonTask {
  readonly instanceId: string;
  readonly deploymentId: string;
  readonly processId: string;
  readonly node: string;
  readonly name: string | null;
  readonly channel: string;
  /** Where the completing message goes. */
  readonly method: string;
  readonly path: string;
  /** The channel's caller check: its scheme, and the header for an API key. */
  readonly auth: { readonly scheme: string; readonly header?: string } | null;
  /** The message's JSON Schema, when the channel's codec is one. */
  readonly schema: unknown;
  /** Values the message must carry for correlation: JSON path (dot-separated) to value. */
  readonly prefill: Readonly<Record<string, string>>;
  readonly waitingSince: string;
}

/** Live message waits, oldest first, from the partial index of message waits (migration 10). */
export const TASK_WAITS_STATEMENT = `select w.instance_id, w.node_id, w.channel, w.created_at,
    i.tenant, i.deployment_id, i.process_id
  from waits w join instances i on i.instance_id = w.instance_id and i.tenant = w.tenant
  where w.kind = 'message' and i.status = 'RUNNING'
  order by w.created_at, w.wait_id limit $1`;

/** The user tasks waiting for a person, oldest first, at most `limit`. */
export async function listPersonTasks(
  db: Queryable,
  registry: DeploymentRegistry,
  limit: number,
): Promise<PersonTask[]> {
  const { rows } = await db.query<{
    instance_id: string;
    node_id: string;
    channel: string | null;
    created_at: Date;
    tenant: string;
    deployment_id: string;
    process_id: string;
  }>(TASK_WAITS_STATEMENT, [limit]);
  const tasks: PersonTask[] = [];
  for (const r of rows) {
    const deployment = registry.get(r.deployment_id);
    const process = deployment?.plans.get(r.process_id)?.processById.get(r.process_id);
    const index = process?.nodeIndex.get(r.node_id);
    if (!deployment || !process || index === undefined) continue;
    const node = process.nodes[index];
    const sub = node.subscription;
    if (node.kind !== "userTask" || !sub || sub.channel !== r.channel) continue;
    const channel = deployment.package.channels.entries?.find((c) => c.name === sub.channel);
    const bind = channel?.transport === "http"
      ? /^([A-Z]+)\s+(\/\S*)$/.exec(channel.bind ?? "")
      : null;
    if (!channel || !bind) continue;
    tasks.push({
      instanceId: r.instance_id,
      deploymentId: r.deployment_id,
      processId: r.process_id,
      node: node.id,
      name: node.name ?? null,
      channel: channel.name,
      method: bind[1],
      path: bind[2],
      auth: !channel.auth || channel.auth.scheme === "none"
        ? null
        : channel.auth.scheme === "apikey"
        ? { scheme: "apikey", header: channel.auth.apikey.header }
        : { scheme: channel.auth.scheme },
      schema: schemaOf(deployment, channel.codec),
      prefill: await prefill(db, r.tenant, r.instance_id, node),
      waitingSince: r.created_at.toISOString(),
    });
  }
  return tasks;
}

/** The JSON Schema behind a package codec, when it is one. */
function schemaOf(deployment: ActiveDeployment, urn: string | undefined): unknown {
  const codec = urn === undefined ? undefined : deployment.package.codecs.own(urn);
  if (codec?.kind !== "json-schema") return null;
  const files = [...deployment.package.files.keys()].filter((p) =>
    p.startsWith(`${codec.folder}/`) && p.endsWith(".json")
  );
  if (files.length !== 1) return null;
  try {
    return JSON.parse(new TextDecoder().decode(deployment.package.files.get(files[0])));
  } catch {
    return null;
  }
}

/**
 * The aliases a correlating message must carry, where the alias reads a
 * plain path of the message (`decision.ApprovalDecision.E2EId` on a
 * subscription named `decision`): that path, filled with the value the
 * instance holds.
 */
async function prefill(
  db: Queryable,
  tenant: string,
  instanceId: string,
  node: PlanNode,
): Promise<Record<string, string>> {
  const sub = node.subscription!;
  const paths = new Map<string, string>();
  for (const alias of sub.aliases) {
    const [head, ...rest] = alias.expression.text.trim().split(".");
    if (head === sub.variable && rest.length > 0 && rest.every((s) => /^\w+$/.test(s))) {
      paths.set(alias.name, rest.join("."));
    }
  }
  if (paths.size === 0) return {};
  const { rows } = await db.query<{ name: string; value: string }>(
    `select name, value from aliases
      where instance_id = $1 and tenant = $2 and retired_at is null order by created_at`,
    [instanceId, tenant],
  );
  const out: Record<string, string> = {};
  for (const r of rows) {
    const path = paths.get(r.name);
    if (path !== undefined) out[path] = r.value;
  }
  return out;
}
