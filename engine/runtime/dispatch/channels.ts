/**
 * The channel table the intake pipeline routes on, rebuilt from the
 * deployment registry whenever it changes: for each channel name, the
 * active deployment that declares it, its codec, the start subscriptions of
 * that deployment, and the relay subscriptions of every registered revision
 * (a draining revision's parked instances still resume).
 *
 * @module
 */
import type { ExecutionPlan, Subscription } from "../../bpmn/mod.ts";
import { type Codec, codecs, codecUrn } from "../../core/codec.ts";
import type { AckMode, BoundChannel, TransportFactory } from "../../core/transport.ts";
import type { Registry } from "../../core/registry.ts";
import type { ChannelDecl } from "../../package/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";

/** A subscription together with the deployment and plan it belongs to. */
export interface Route {
  readonly deployment: ActiveDeployment;
  readonly plan: ExecutionPlan;
  readonly subscription: Subscription;
}

/** One routable channel. */
export interface ChannelEntry {
  readonly tenant: string;
  readonly deployment: ActiveDeployment;
  readonly decl: ChannelDecl;
  readonly codec: Codec;
  readonly ackMode: AckMode;
  readonly starts: readonly Route[];
  readonly relays: readonly Route[];
}

/** Channel name → entry. */
export type ChannelTable = ReadonlyMap<string, ChannelEntry>;

// A channel without a codec still decodes: its bytes arrive as they are.
const RAW_BYTES = codecUrn("raw-bytes");

function routesOf(deployment: ActiveDeployment, channel: string, role: "start" | "relay"): Route[] {
  const routes: Route[] = [];
  for (const plan of new Set(deployment.plans.values())) {
    for (const subscription of plan.subscriptionsByChannel.get(channel) ?? []) {
      if (subscription.role === role) routes.push({ deployment, plan, subscription });
    }
  }
  return routes;
}

/** Builds the table; `transports` supplies each transport's default and on-complete capability. */
export function buildChannelTable(
  registry: DeploymentRegistry,
  transports: Registry<TransportFactory>,
): ChannelTable {
  const table = new Map<string, ChannelEntry>();
  const deployments = registry.list();
  for (const deployment of deployments) {
    if (deployment.status !== "active") continue;
    for (const decl of deployment.package.channels.entries ?? []) {
      if (table.has(decl.name)) continue;
      const codec = decl.codec
        ? deployment.package.codecs.codec(decl.codec)
        : codecs.get(RAW_BYTES);
      const factory = transports.get(decl.transport);
      if (!codec || !factory) continue;
      const declared = decl.ackMode ?? factory.defaultAckMode;
      const relays = deployments
        .filter((d) => d.tenant === deployment.tenant)
        .flatMap((d) => routesOf(d, decl.name, "relay"));
      table.set(decl.name, {
        tenant: deployment.tenant,
        deployment,
        decl,
        codec,
        ackMode: declared === "on-complete" && !factory.handlesOnComplete ? "on-persist" : declared,
        starts: routesOf(deployment, decl.name, "start"),
        relays,
      });
    }
  }
  return table;
}

/** Each table's channels per transport, made on first ask (a table is never changed once built). */
const bound = new WeakMap<ChannelTable, Map<string, readonly BoundChannel[]>>();

/**
 * The channels of one transport, as the transport sees them. The same
 * table answers the same array, so a transport may key what it derives
 * from the list on the array itself.
 */
export function boundChannels(table: ChannelTable, transport: string): readonly BoundChannel[] {
  let byTransport = bound.get(table);
  if (!byTransport) bound.set(table, byTransport = new Map());
  let channels = byTransport.get(transport);
  if (!channels) {
    channels = Object.freeze(
      [...table.values()]
        .filter((e) => e.decl.transport === transport)
        .map((e) => ({
          tenant: e.tenant,
          deploymentId: e.deployment.deploymentId,
          declaration: e.decl,
          ackMode: e.ackMode,
        })),
    );
    byTransport.set(transport, channels);
  }
  return channels;
}

/** True when the subscription accepts this message type. */
export function acceptsType(subscription: Subscription, messageType: string | undefined): boolean {
  if (subscription.messageTypeValue !== undefined) {
    return subscription.messageTypeValue === messageType;
  }
  if (subscription.messageTypePattern !== undefined) {
    return messageType !== undefined && subscription.messageTypePattern.test(messageType);
  }
  return true;
}
