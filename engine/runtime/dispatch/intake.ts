/**
 * The one intake path every transport hands its messages to. Read top to
 * bottom, {@link Dispatcher.deliver} runs:
 *
 * 1. {@link resolveChannel} — the channel the message arrived on;
 * 2. `admitInbound` — the payload cap, then the channel's codec;
 * 3. {@link resolveRoutes} — the start subscriptions for the message type, else the relays
 *    (a relay that carries its sender's idempotency key and was seen before is answered
 *    here with the instance the first copy advanced), then the tenant's quotas
 *    (`tenancy/quotas.ts`: a message arriving past one is refused `overloaded`);
 * 4. {@link consumerOf} — the consuming node: the first start route, or the
 *    relay route whose `q:alias` values match a live alias ({@link correlate}; an
 *    instance this process saw holding the value is taken on trust, and a claim that
 *    finds the value moved sends the relay back here to look it up);
 * 5. {@link screenRoute} — that node's `q:source` validators and `q:onValidation`;
 * 6. {@link captureInbound} — on-persist only: the message is stored, the caller gets 202;
 * 7. {@link runStart} / {@link runResume} — on the instance's lane: claim, step, commit;
 * 8. {@link settle} — the outcome, with the `q:reply` body for on-complete callers; a
 *    delivery whose transport acknowledges once its instances end has its hold, named
 *    before each commit, sealed with that outcome (`acks/registry.ts`).
 *
 * @module
 */
import { setImmediate } from "node:timers";
import type { Clock } from "../../core/clock.ts";
import type { Decoded } from "../../core/codec.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import { newId } from "../../core/ids.ts";
import type { Logger } from "../../core/log.ts";
import type { Registry } from "../../core/registry.ts";
import type {
  DeliveryOutcome,
  InboundDelivery,
  RefusalClass,
  TransportFactory,
} from "../../core/transport.ts";
import type { InboundMessage, StepInput } from "../../executor/mod.ts";
import {
  admitInbound,
  compileValidatorChain,
  type IntakeSource,
  screenInbound,
  type ValidatorChain,
} from "../../intake/mod.ts";
import { CommitInDoubtError, type Database } from "../../persistence/mod.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import { instancesByAlias, instanceStatus } from "../instances/repository.ts";
import type { AckHold, DeferredAckRegistry } from "../acks/registry.ts";
import { errorMessage } from "../../core/errors.ts";
import { inboundCloudEventMode } from "../../core/cloudevents.ts";
import {
  acceptsType,
  buildChannelTable,
  type ChannelEntry,
  type ChannelTable,
  type Route,
} from "./channels.ts";
import { KeyOrder } from "./key_order.ts";
import type { Lanes } from "./lanes.ts";
import { telemetryOf, traced, traceDispatch } from "../telemetry/mod.ts";
import { groupCommitOf } from "./group_commit.ts";
import {
  type Capture,
  captureId,
  consumeFailedCapture,
  dropCaptured,
  storedReplyRoute,
} from "./inbox.ts";
import { advanceInstance, startInstance } from "./advance.ts";
import { aliasPredictionsOf } from "./alias_predictions.ts";
import { relayAliasValues, relayBeyondLimits } from "./limits.ts";
import type { DeploymentStores } from "./ports.ts";
import { type DedupKey, dedupKeyOf, earlierDelivery, explicitRelayKey } from "./dedup.ts";
import type { Protection } from "../audit/mod.ts";
import type { TenantQuotas } from "../tenancy/quotas.ts";

/** Options for {@link Dispatcher}. */
export interface DispatcherOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  readonly transports: Registry<TransportFactory>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly lanes: Lanes;
  /** This replica's id; claim owners are `<replica>/lane-<n>`. */
  readonly replicaId: string;
  /** `sutra.inbound.payload-cap-bytes`. */
  readonly capBytes: number;
  /** The deployments' data stores; without them a step can neither read nor write a store. */
  readonly stores?: DeploymentStores;
  /** Write each step's audit events (`sutra.audit.sql`). */
  readonly auditJournal?: boolean;
  /** The audit sinks and the keyring (see `CommitOptions.protection`). */
  readonly protection?: Protection;
  /** Delete instances as they complete (`sutra.instance.retention` PT0S). */
  readonly deleteAtCompletion?: boolean;
  /** A claim older than this is stale and taken over (`sutra.instance.claim-timeout`). */
  readonly claimTimeoutMs?: number;
  /** Where deliveries whose transport acknowledges once the instance ends wait. */
  readonly acks: DeferredAckRegistry;
  /** The tenants' admission quotas, checked once per message as it arrives. */
  readonly quotas?: TenantQuotas;
}

// Refusals a later redrive may get past; "failed" only for an idempotent process (see redrives).
const RETRYABLE: ReadonlySet<RefusalClass> = new Set(["retry", "overloaded", "failed"]);

/** What one run of a delivery got as far as: the node it was for, once known. */
interface Attempt {
  consumer?: { readonly route: Route; readonly instanceId?: string };
  /** A step committed with the capture, marking it done in the same transaction. */
  consumedCapture?: boolean;
  /** This run looked its relay's own idempotency key up already: no earlier delivery had it. */
  relayKeyChecked?: boolean;
}

/** The node a message is for: a relay's carries the instance it correlated with. */
export type Consumer =
  | { readonly role: "start"; readonly routes: readonly Route[] }
  | { readonly role: "relay" } & Correlated;

/** A relay whose predicted instance no longer holds the alias: correlate it again by lookup. */
const MOVED = Symbol("moved");

/** What screening decided: run with these variables, raising `raise` at the node when set. */
export interface Admitted {
  readonly kind: "accept";
  readonly variables: Readonly<Record<string, unknown>>;
  /** The BPMN error code `q:onValidation mode="error"` raises. */
  readonly raise?: string;
}

/** A message past decoding and routing (stages 1 to 3). */
interface Intaken {
  readonly delivery: InboundDelivery;
  readonly channel: ChannelEntry;
  readonly resolved: { role: "start" | "relay"; routes: readonly Route[] };
  readonly message: InboundMessage;
  readonly admission: Parameters<typeof screenRoute>[1];
}

/** A message that passed intake and is ready to run. */
interface Screened {
  readonly channel: ChannelEntry;
  readonly message: InboundMessage;
  readonly admitted: Admitted;
  /** The sender's own idempotency key, when the transport supplied one. */
  readonly idempotencyKey?: string;
  /** Where the step's `q:reply` goes as an outbox row (a broker's reply-to). */
  readonly replyTo?: InboundDelivery["replyTo"];
}

/** A refusal: nothing was written. */
function refused(
  refusal: RefusalClass,
  code: string,
  message: string,
  attributes: Record<string, string | number | boolean> = {},
): DeliveryOutcome {
  return { kind: "refused", refusal, diagnostics: [diagnostic(code, message, { attributes })] };
}

/** Stage 1: the channel, or SUTRA.RESOLVE.CHANNEL.UNKNOWN. */
export function resolveChannel(
  table: ChannelTable,
  name: string,
): ChannelEntry | DeliveryOutcome {
  return table.get(name) ??
    refused(
      "not-found",
      "SUTRA.RESOLVE.CHANNEL.UNKNOWN",
      `no active deployment serves channel '${name}'`,
      { channel: name },
    );
}

/** Stage 3: start routes for the message type (one, or all on a broadcast channel), else relays. */
export function resolveRoutes(
  channel: ChannelEntry,
  decoded: Decoded,
): { role: "start" | "relay"; routes: Route[] } | DeliveryOutcome {
  const starts = channel.starts.filter((r) => acceptsType(r.subscription, decoded.messageType));
  if (starts.length > 0) {
    return { role: "start", routes: channel.decl.broadcast ? starts : [starts[0]] };
  }
  const relays = channel.relays.filter((r) => acceptsType(r.subscription, decoded.messageType));
  if (relays.length > 0) return { role: "relay", routes: relays };
  return refused(
    "not-found",
    "SUTRA.RUNTIME.DISPATCH.NO_MATCH",
    `no process subscribes to message type '${
      decoded.messageType ?? "(none)"
    }' on channel '${channel.decl.name}'`,
    { channel: channel.decl.name, messageType: decoded.messageType ?? "" },
  );
}

const chains = new WeakMap<Route["subscription"], ValidatorChain>();

function chainOf(route: Route): ValidatorChain {
  let chain = chains.get(route.subscription);
  if (!chain) {
    const built = compileValidatorChain(route.subscription.validators, {
      files: route.deployment.package.files,
      variable: route.subscription.variable,
      uri: route.plan.uri,
    });
    // Deploy-time checks refuse a chain that does not compile; reaching here is a bug.
    if (!built.chain) throw new Error(built.diagnostics[0].message);
    chain = built.chain;
    chains.set(route.subscription, chain);
  }
  return chain;
}

/** Stage 5: the consuming source's validators; a reject refuses the message. */
export async function screenRoute(
  route: Route,
  admitted: Parameters<typeof screenInbound>[0],
  clock: Clock,
): Promise<Admitted | DeliveryOutcome> {
  const s = route.subscription;
  const source: IntakeSource = {
    variable: s.variable,
    chain: chainOf(route),
    onValidation: s.onValidation,
    redactors: s.redactors,
    dataClass: s.dataClass,
  };
  const verdict = await screenInbound(admitted, { source, clock });
  if (verdict.kind === "reject") {
    return { kind: "refused", refusal: "rejected", diagnostics: verdict.diagnostics };
  }
  // The payload itself is bound by the executor from the message; validation rides along.
  const variables = { validation: verdict.validation };
  return verdict.kind === "error"
    ? { kind: "accept", variables, raise: verdict.errorCode }
    : { kind: "accept", variables };
}

/** A relay's instance, with the route that found it. */
export interface Correlated {
  readonly route: Route;
  readonly instanceId: string;
  /** Set when the instance was predicted, not looked up: its claim must go through this alias. */
  readonly through?: { readonly name: string; readonly value: string };
  /**
   * Later holders of the alias value, in correlation order: alias values are shared by the
   * tenant's processes, so when a holder belongs to another process the next one is tried.
   */
  readonly others?: readonly string[];
}

/**
 * The first live instance a relay route's aliases point at, with that
 * route. With `predict`, an alias this process has seen lead to an
 * instance ({@link aliasPredictionsOf}) is taken at its word, unchecked:
 * the claim checks it.
 */
export async function correlate(
  db: Database,
  tenant: string,
  routes: readonly Route[],
  message: InboundMessage,
  predict = false,
): Promise<Correlated | undefined> {
  const predictions = aliasPredictionsOf(db);
  for (const route of routes) {
    for (const { name, value } of relayAliasValues(route, message)) {
      const key = { tenant, name, value };
      const predicted = predict ? predictions.predict(key) : undefined;
      if (predicted !== undefined) {
        return { route, instanceId: predicted, through: { name, value } };
      }
      const [instanceId, ...others] = await instancesByAlias(db, key);
      if (instanceId === undefined) continue;
      // A value held more than once may lead elsewhere for another process's message.
      if (others.length === 0) {
        predictions.remember(key, instanceId);
        return { route, instanceId };
      }
      return { route, instanceId, others };
    }
  }
  return undefined;
}

/**
 * Stage 4: the consuming node. A relay correlates before it is screened so
 * that the node it resumes judges it with its own validators, not those of
 * whichever candidate happens to come first.
 */
export async function consumerOf(
  db: Database,
  channel: ChannelEntry,
  resolved: { role: "start" | "relay"; routes: readonly Route[] },
  message: InboundMessage,
  predict = false,
): Promise<Consumer | DeliveryOutcome> {
  if (resolved.role === "start") return { role: "start", routes: resolved.routes };
  const beyond = relayBeyondLimits(resolved.routes, message);
  if (beyond) return beyond;
  const found = await correlate(db, channel.tenant, resolved.routes, message, predict);
  if (found) return { role: "relay", ...found };
  return refused(
    "not-found",
    "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND",
    `no parked instance matches the message's correlation on channel '${channel.decl.name}'`,
    { channel: channel.decl.name },
  );
}

/** Runs inbound messages through the pipeline. */
export class Dispatcher {
  readonly #o: DispatcherOptions;
  #table: ChannelTable;
  /** The captures this process is running now (tenant, channel, event id). */
  readonly #running = new Set<string>();
  /**
   * The intake of a message captured by this process, kept for its run
   * right after: the run decodes and screens it once, not twice. A
   * capture redriven from the table has none.
   */
  readonly #intaken = new WeakMap<Capture, Intaken & { readonly admitted?: Admitted }>();
  /** Keeps the runs of captures that share a transport's ordering key in capture order. */
  readonly #captureOrder = new KeyOrder();

  constructor(options: DispatcherOptions) {
    this.#o = options;
    this.#table = this.#build();
    options.registry.subscribe(() => {
      this.#table = this.#build();
    });
  }

  #build(): ChannelTable {
    const table = buildChannelTable(this.#o.registry, this.#o.transports);
    for (const entry of table.values()) {
      if (entry.decl.ackMode === "on-complete" && entry.ackMode === "on-persist") {
        this.#o.logger.warn(
          `channel '${entry.decl.name}' asks for on-complete, which transport '${entry.decl.transport}' cannot hold; it runs on-persist`,
          { code: "SUTRA.ACK.ON_COMPLETE_UNSUPPORTED", channel: entry.decl.name },
        );
      }
    }
    return table;
  }

  /** The current channel table (transports read their bindings from it). */
  get table(): ChannelTable {
    return this.#table;
  }

  /**
   * The whole pipeline for one message; never rejects. A delivery carrying a
   * deferral on an on-complete channel has it settled once every instance
   * it started or advanced has ended (see `acks/registry.ts`).
   */
  async deliver(delivery: InboundDelivery): Promise<DeliveryOutcome> {
    const channel = delivery.deferral && this.#table.get(delivery.channel);
    if (!channel || channel.ackMode !== "on-complete") return await this.#guarded(delivery);
    const hold = this.#o.acks.open(delivery.deferral!, channel.decl.name);
    const outcome = await this.#guarded(delivery, undefined, {}, hold);
    await this.#seal(hold, channel.tenant, outcome);
    return outcome;
  }

  /** Seals a hold; an instance it learns of only now (a redelivery's) may have ended already. */
  async #seal(hold: AckHold, tenant: string, outcome: DeliveryOutcome): Promise<void> {
    for (const instanceId of hold.seal(tenant, outcome)) {
      try {
        const status = await instanceStatus(this.#o.db, tenant, instanceId);
        this.#o.acks.ended(tenant, instanceId, status ?? "PURGED");
      } catch (error) {
        // The hold's timeout releases it for redelivery; the outcome stands.
        this.#o.logger.warn("could not read a redelivered instance's status", {
          instanceId,
          error: errorMessage(error),
        });
      }
    }
  }

  /**
   * Runs a captured on-persist message (right after capture, or after a
   * restart). A permanent refusal retires the capture; a retryable one
   * leaves it pending for the next redrive; a failed run is retried or
   * consumed with an incident as `q:process idempotent` says ({@link redrives}).
   */
  async runCaptured(capture: Capture): Promise<DeliveryOutcome> {
    const key = `${capture.tenant}\u0000${capture.delivery.channel}\u0000${capture.eventId}`;
    // A capture still queued here behind a backlog looks orphaned to the redrive sweep; the
    // redriven copy lacks the transport's idempotency key, so running it too could run it twice.
    if (this.#running.has(key)) return { kind: "captured", receiptId: capture.eventId };
    this.#running.add(key);
    try {
      return await this.#runCaptured(capture);
    } finally {
      this.#running.delete(key);
    }
  }

  async #runCaptured(taken: Capture): Promise<DeliveryOutcome> {
    const attempt: Attempt = {};
    const capture = this.#intaken.has(taken) ? taken : await this.#restored(taken);
    const outcome = await this.#guarded(capture.delivery, capture, attempt);
    if (outcome.kind === "refused" && redrives(outcome.refusal, attempt)) return outcome;
    const row = { ...capture, channel: capture.delivery.channel };
    if (outcome.kind === "refused" && outcome.refusal === "failed" && attempt.consumer) {
      await this.#consumeFailure(row, outcome.diagnostics, attempt.consumer);
      return outcome;
    }
    if (outcome.kind === "refused") {
      this.#o.logger.warn("a captured message was refused when it ran", {
        code: outcome.diagnostics[0]?.code,
        channel: capture.delivery.channel,
        eventId: capture.eventId,
      });
    }
    // Refused for good, or answered from an earlier delivery: either way it is settled.
    if (!attempt.consumedCapture) await dropCaptured(this.#o.db, row);
    return outcome;
  }

  /** A capture taken up from the table, with the reply route it was stored with. */
  async #restored(capture: Capture): Promise<Capture> {
    if (capture.delivery.replyTo) return capture;
    const replyTo = await storedReplyRoute(this.#o.db, {
      tenant: capture.tenant,
      channel: capture.delivery.channel,
      eventId: capture.eventId,
    });
    return replyTo ? { ...capture, delivery: { ...capture.delivery, replyTo } } : capture;
  }

  /** A non-idempotent process's failed run: consumed, with an incident, never blindly re-run. */
  async #consumeFailure(
    row: { tenant: string; channel: string; eventId: string },
    diagnostics: readonly Diagnostic[],
    consumer: NonNullable<Attempt["consumer"]>,
  ): Promise<void> {
    const code = diagnostics[0]?.code ?? "SUTRA.RUNTIME.UNEXPECTED";
    const detail = diagnostics[0]?.message ?? "the message could not be processed";
    await consumeFailedCapture(this.#o.db, row, {
      instanceId: consumer.instanceId,
      deploymentId: consumer.route.deployment.deploymentId,
      code,
      detail,
    });
    this.#o.logger.warn("a captured message failed on a non-idempotent process; consumed", {
      code,
      channel: row.channel,
      eventId: row.eventId,
      ...(consumer.instanceId ? { instanceId: consumer.instanceId } : {}),
    });
  }

  async #guarded(
    delivery: InboundDelivery,
    capture?: Capture,
    attempt: Attempt = {},
    hold?: AckHold,
  ): Promise<DeliveryOutcome> {
    // One `sutra.dispatch` span per run; the failure logs below belong to it.
    return await traceDispatch(
      this.#o.db,
      delivery,
      () => this.#contained(delivery, capture, attempt, hold),
    );
  }

  /** The run, every throw turned into a refusal. */
  async #contained(
    delivery: InboundDelivery,
    capture: Capture | undefined,
    attempt: Attempt,
    hold: AckHold | undefined,
  ): Promise<DeliveryOutcome> {
    try {
      return await this.#intake(delivery, capture, attempt, hold);
    } catch (error) {
      if (error instanceof CommitInDoubtError) {
        this.#o.logger.error(error.message, {
          code: "SUTRA.DB.COMMIT_IN_DOUBT",
          channel: delivery.channel,
          transactionId: error.transactionId,
        });
        return refused(
          "failed",
          "SUTRA.DB.COMMIT_IN_DOUBT",
          `${error.message}; look the instance up before sending the message again`,
          { transactionId: error.transactionId },
        );
      }
      this.#o.logger.error("intake failed unexpectedly", {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        channel: delivery.channel,
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      return refused("failed", "SUTRA.RUNTIME.UNEXPECTED", "the message could not be processed");
    }
  }

  async #intake(
    delivery: InboundDelivery,
    receipt: Capture | undefined,
    attempt: Attempt,
    hold: AckHold | undefined,
  ): Promise<DeliveryOutcome> {
    const early = receipt && this.#intaken.get(receipt);
    // Decoded at capture by the same deployments: reused (a redeploy since then decodes again).
    if (early && this.#table.get(delivery.channel) === early.channel) {
      return await this.#consumeAll(early, receipt, attempt, hold);
    }
    const channel = resolveChannel(this.#table, delivery.channel);
    if ("kind" in channel) return channel;
    const admission = await traced(
      "sutra.decode",
      { "sutra.channel": channel.decl.name },
      () =>
        admitInbound(
          { ...delivery },
          {
            channel: { codec: channel.codec, payloadCapBytes: channel.decl.payloadCapBytes },
            capBytes: this.#o.capBytes,
          },
        ),
      { leaf: true },
    );
    if (!admission.admitted) {
      const tooLarge = admission.diagnostics[0]?.code === "SUTRA.INBOUND.PAYLOAD_TOO_LARGE";
      return {
        kind: "refused",
        refusal: tooLarge ? "too-large" : "malformed",
        diagnostics: admission.diagnostics,
      };
    }
    const resolved = resolveRoutes(channel, admission.decoded);
    if ("kind" in resolved) return resolved;
    // A capture run later was admitted when it arrived.
    const { quotas } = this.#o;
    const overQuota = !receipt && quotas &&
      await quotas.admit(channel.tenant, resolved.role === "start");
    if (overQuota) return overQuota;
    const message: InboundMessage = {
      payload: admission.decoded.payload,
      headers: delivery.headers,
      messageType: admission.decoded.messageType,
    };
    if (resolved.role === "relay" && delivery.idempotencyKey !== undefined) {
      const key = explicitRelayKey(
        { tenant: channel.tenant, channel: channel.decl.name },
        delivery.idempotencyKey,
      );
      const earlier = await earlierDelivery(this.#o.db, key);
      if (earlier) return { kind: "settled", instances: [earlier] };
      attempt.relayKeyChecked = true;
    }
    return await this.#consumeAll(
      { delivery, channel, resolved, message, admission },
      receipt,
      attempt,
      hold,
    );
  }

  /** Stages 4 to 7, again by lookup when a predicted relay's instance moved. */
  async #consumeAll(
    intaken: Intaken & { readonly admitted?: Admitted },
    receipt: Capture | undefined,
    attempt: Attempt,
    hold: AckHold | undefined,
  ): Promise<DeliveryOutcome> {
    // Predictions only for a message that runs now: an on-persist capture must be refused at
    // once when nothing correlates, which takes the lookup.
    const runsNow = intaken.channel.ackMode !== "on-persist" || receipt !== undefined;
    // Only a predicted relay comes back MOVED, so the lookup's run is the last.
    for (let predict = runsNow;; predict = false) {
      const outcome = await this.#consume(intaken, receipt, attempt, hold, predict);
      if (outcome !== MOVED) return outcome;
    }
  }

  /** Stages 4 to 7 for a decoded message. */
  async #consume(
    intaken: Intaken & { readonly admitted?: Admitted },
    receipt: Capture | undefined,
    attempt: Attempt,
    hold: AckHold | undefined,
    predict: boolean,
  ): Promise<DeliveryOutcome | typeof MOVED> {
    const { delivery, channel, resolved, message, admission } = intaken;
    const consumer = await traced(
      "sutra.resolve",
      { "sutra.channel": channel.decl.name },
      () => consumerOf(this.#o.db, channel, resolved, message, predict),
      { leaf: true },
    );
    if ("kind" in consumer) return consumer;
    const screenOn = consumer.role === "start" ? consumer.routes[0] : consumer.route;
    attempt.consumer = consumer.role === "start" ? { route: screenOn } : consumer;
    // A start's node is the one screened at capture; a relay's may have moved since.
    const admitted = consumer.role === "start" && intaken.admitted
      ? intaken.admitted
      : await traced(
        "sutra.validate",
        { "sutra.channel": channel.decl.name },
        () => screenRoute(screenOn, admission, this.#o.clock),
        { leaf: true },
      );
    if (admitted.kind !== "accept") return admitted;
    const screened: Screened = {
      channel,
      message,
      admitted,
      ...(delivery.idempotencyKey === undefined ? {} : { idempotencyKey: delivery.idempotencyKey }),
      ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
    };
    if (channel.ackMode === "on-persist" && !receipt) {
      return await captureInbound(this.#o.db, channel, delivery, (c) => {
        this.#intaken.set(c, { ...intaken, ...(consumer.role === "start" ? { admitted } : {}) });
        const order = delivery.orderingKey === undefined
          ? undefined
          : [channel.tenant, channel.decl.name, delivery.orderingKey].join("\u0000");
        return this.#captureOrder.run(order, () => this.runCaptured(c));
      });
    }
    return consumer.role === "start"
      ? await this.#starts(screened, consumer.routes, receipt, hold, attempt)
      : await this.#relay(screened, consumer, receipt, hold, attempt);
  }

  async #starts(
    screened: Screened,
    routes: readonly Route[],
    receipt: Capture | undefined,
    hold: AckHold | undefined,
    attempt: Attempt,
  ): Promise<DeliveryOutcome> {
    const outcomes: DeliveryOutcome[] = [];
    // A message this process captured just now is rarely a twin (a copy under its transport's
    // key finds the capture instead), so its commit's dedup record is the check: the earlier
    // delivery is looked up only when that record meets a twin's.
    const lookUpFirst = !(receipt && this.#intaken.has(receipt));
    for (const route of routes) {
      const dedup = dedupKeyOf(
        route,
        screened.message,
        this.#scope(screened),
        screened.idempotencyKey,
      );
      const earlier = dedup && lookUpFirst && await earlierDelivery(this.#o.db, dedup);
      if (earlier) {
        outcomes.push({ kind: "settled", instances: [earlier] });
        continue;
      }
      const instanceId = newId();
      const outcome = await this.#onLane(
        instanceId,
        (lane) => runStart(this.#o, { screened, route, instanceId, lane, receipt, dedup, hold }),
      );
      consumed(attempt, receipt, outcome);
      const late = dedup && !lookUpFirst && isDuplicate(outcome) &&
        await earlierDelivery(this.#o.db, dedup);
      outcomes.push(late ? { kind: "settled", instances: [late] } : outcome);
    }
    return settle(outcomes);
  }

  async #relay(
    screened: Screened,
    found: Correlated,
    receipt: Capture | undefined,
    hold: AckHold | undefined,
    attempt: Attempt,
  ): Promise<DeliveryOutcome | typeof MOVED> {
    const dedup = dedupKeyOf(
      found.route,
      screened.message,
      this.#scope(screened),
      screened.idempotencyKey,
    );
    // The delivery's own key is the relay's dedup key: looked up before correlation, if this run
    // did (a twin committing since then is refused by the commit's record).
    const earlier = dedup && !attempt.relayKeyChecked && await earlierDelivery(this.#o.db, dedup);
    if (earlier) return { kind: "settled", instances: [earlier] };
    for (const instanceId of [found.instanceId, ...(found.others ?? [])]) {
      const candidate = instanceId === found.instanceId
        ? found
        : { route: found.route, instanceId };
      // The one handoff: resolved on the arrival lane, run on the instance's lane.
      const outcome = await this.#onLane(
        instanceId,
        (lane) => {
          telemetryOf(this.#o.db)?.handoff(lane);
          return runResume(this.#o, { screened, ...candidate, lane, receipt, dedup, hold });
        },
      );
      if (outcome === OTHER_PROCESS) continue;
      if (outcome !== MOVED) consumed(attempt, receipt, outcome);
      return outcome;
    }
    return notCorrelated(screened.channel.decl.name);
  }

  #scope(screened: Screened): { tenant: string; channel: string } {
    return { tenant: screened.channel.tenant, channel: screened.channel.decl.name };
  }

  #onLane<T>(key: string, work: (lane: number) => Promise<T>): Promise<T> {
    return this.#o.lanes.run(
      key,
      (lane) =>
        traced("sutra.execute", { "bpm.instance.id": key, "sutra.lane": lane }, () => work(lane)),
    );
  }
}

/** Whether a commit met a twin's dedup record. */
function isDuplicate(outcome: DeliveryOutcome): boolean {
  return outcome.kind === "refused" && outcome.diagnostics[0]?.code === "SUTRA.INBOUND.DUPLICATE";
}

/** Notes that a step committed with the capture: its transaction marked the capture done. */
function consumed(attempt: Attempt, receipt: Capture | undefined, outcome: DeliveryOutcome): void {
  if (receipt && outcome.kind === "settled") attempt.consumedCapture = true;
}

/**
 * Whether a refused capture stays pending for another run. Lost races and
 * full lanes always do. An execution failure does only when the consuming
 * process is `q:process idempotent="true"`: re-running any other process
 * could repeat what it already did, so its message is consumed instead.
 */
function redrives(refusal: RefusalClass, attempt: Attempt): boolean {
  if (refusal !== "failed" || !attempt.consumer) return RETRYABLE.has(refusal);
  const { route } = attempt.consumer;
  return route.plan.processById.get(route.subscription.process)?.idempotent ?? false;
}

/** Stage 6: stores an on-persist message and answers once it is durable. */
export async function captureInbound(
  db: Database,
  channel: ChannelEntry,
  delivery: InboundDelivery,
  run: (capture: Capture) => Promise<unknown>,
): Promise<DeliveryOutcome> {
  const capture: Capture = { tenant: channel.tenant, eventId: captureId(delivery), delivery };
  // Shares a transaction (one log flush) and one insert with the captures committing meanwhile.
  const stored = await groupCommitOf(db).capture(capture);
  // Processing continues after the acknowledgement; a crash leaves the row pending for redrive.
  // A copy captured before is acknowledged only: the first capture's run is due, or done.
  if (stored) afterAcknowledgements(() => void run(capture));
  return { kind: "captured", receiptId: capture.eventId };
}

/** Runs of captures waiting for the turn after their acknowledgements, in capture order. */
let due: (() => void)[] = [];

/**
 * Queues `run` for the next turn of the event loop: one callback per group of
 * captures, not one per capture. (`setImmediate`, not `setTimeout(…, 0)`:
 * Deno's zero-delay timer fires about 2 ms later, which every on-persist
 * message would wait.)
 */
function afterAcknowledgements(run: () => void): void {
  if (due.length === 0) setImmediate(runDue);
  due.push(run);
}

function runDue(): void {
  const now = due;
  due = [];
  for (const run of now) run();
}

interface StartWork {
  readonly screened: Screened;
  readonly route: Route;
  readonly instanceId: string;
  readonly lane: number;
  readonly receipt?: Capture;
  readonly dedup?: DedupKey;
  readonly hold?: AckHold;
}

/** Stage 7a: a new instance — step, then insert it with everything the step produced. */
export async function runStart(o: DispatcherOptions, w: StartWork): Promise<DeliveryOutcome> {
  const { route, screened } = w;
  const code = screened.admitted.raise;
  const started = await startInstance(o, route.plan, {
    type: "start",
    instanceId: w.instanceId,
    process: route.subscription.process,
    node: route.subscription.nodeId,
    message: screened.message,
    variables: screened.admitted.variables,
    ...(code === undefined ? {} : { raise: { code, message: failedValidation(code) } }),
  }, {
    tenant: screened.channel.tenant,
    instanceId: w.instanceId,
    deployment: route.deployment,
    capture: w.receipt,
    dedup: w.dedup,
    hold: w.hold,
    inbound: inboundCloudEventMode(screened.message.headers),
    replyTo: screened.replyTo,
    admission: {
      channel: screened.channel.decl.name,
      cap: screened.channel.decl.maxConcurrentInstances,
    },
  });
  return started.kind === "committed"
    ? started.outcome
    : { kind: "refused", refusal: "rejected", diagnostics: [started.refusal] };
}

interface ResumeWork extends Omit<StartWork, "route">, Correlated {}

/** Stage 7b: a parked instance — claim, rehydrate, step, commit (the claim is released on every exit). */
async function runResume(
  o: DispatcherOptions,
  w: ResumeWork,
): Promise<DeliveryOutcome | typeof MOVED | typeof OTHER_PROCESS> {
  const { instanceId } = w;
  const nodeId = w.route.subscription.nodeId;
  const tenant = w.screened.channel.tenant;
  const key = {
    tenant,
    instanceId,
    owner: `${o.replicaId}/lane-${w.lane}`,
    ...(w.through ? { through: w.through } : {}),
  };
  // The channel may feed several waits (of one process or of several): the message goes to the
  // one the instance waits at, this route's node first.
  const routes = [
    w.route,
    ...w.screened.channel.relays.filter((r) =>
      r !== w.route && r.deployment === w.route.deployment
    ),
  ];
  const advanced = await advanceInstance(o, key, ({ plan, state }) => {
    const waits = [...state.waits.values()].filter((x) => x.kind === "message");
    const at = (r: Route) =>
      waits.find((x) =>
        x.process === r.subscription.process &&
        plan.processById.get(x.process)?.nodes[x.node]?.id === r.subscription.nodeId
      );
    const wait = routes.map(at).find((x) => x !== undefined);
    if (wait) return resumeInput(wait.id, w.screened);
    // Alias values are shared by the tenant's processes: another process's holder is no match.
    const ours = [...state.scopes.values()].some((scope) =>
      routes.some((r) => r.subscription.process === scope.process)
    );
    return { leave: ours ? `is not parked at '${nodeId}'` : OTHER_PROCESS };
  }, {
    capture: w.receipt,
    dedup: w.dedup,
    hold: w.hold,
    inbound: inboundCloudEventMode(w.screened.message.headers),
    replyTo: w.screened.replyTo,
  });
  switch (advanced.kind) {
    case "committed":
      return advanced.outcome;
    case "refused-step":
      return { kind: "refused", refusal: "rejected", diagnostics: [advanced.refusal] };
    case "undecodable":
      return { kind: "refused", refusal: "failed", diagnostics: advanced.diagnostics };
    case "held":
      return refused(
        "retry",
        "SUTRA.RUNTIME.RESUME.CLAIM_HELD",
        `instance ${instanceId} is being advanced elsewhere; retry`,
        { instanceId },
      );
    case "gone":
      if (advanced.why === "moved") {
        aliasPredictionsOf(o.db).forget({ tenant, ...w.through! }, instanceId);
        return MOVED;
      }
      return notWaiting(`instance ${instanceId} no longer waits for this message`, { instanceId });
    case "unloaded":
      return notWaiting(
        `instance ${instanceId} is pinned to deployment ${advanced.deploymentId}, which is not loaded`,
        { instanceId, deploymentId: advanced.deploymentId },
      );
    case "left":
      if (advanced.reason !== OTHER_PROCESS) {
        return notWaiting(`instance ${instanceId} ${advanced.reason}`, {
          instanceId,
          node: nodeId,
        });
      }
      // A predicted holder of another process: the lookup names every holder.
      if (w.through) {
        aliasPredictionsOf(o.db).forget({ tenant, ...w.through }, instanceId);
        return MOVED;
      }
      return OTHER_PROCESS;
  }
}

/** Why a relay left an instance that belongs to another process (never shown to the sender). */
const OTHER_PROCESS = "belongs to another process";

/** The answer when no holder of a relay's alias value is an instance of its process. */
function notCorrelated(channel: string): DeliveryOutcome {
  return notWaiting(
    `no parked instance matches the message's correlation on channel '${channel}'`,
    { channel },
  );
}

function notWaiting(message: string, attributes: Record<string, string>): DeliveryOutcome {
  return refused("not-found", "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND", message, attributes);
}

function failedValidation(code: string): string {
  return `the message failed validation (${code})`;
}

/**
 * What a relay does at its wait: deliver the message, or, when
 * `q:onValidation mode="error"` judged it, raise the BPMN error there
 * instead, so the node's boundaries and the enclosing error event
 * sub-processes see it exactly as if the task had thrown it.
 */
function resumeInput(wait: number, screened: Screened): StepInput {
  const code = screened.admitted.raise;
  if (code === undefined) {
    const message = { ...screened.message, variables: screened.admitted.variables };
    return { type: "message", wait, message };
  }
  return { type: "error", wait, code, message: failedValidation(code) };
}

/** Stage 8: one outcome for the caller — the first refusal, else every instance and the first reply. */
export function settle(outcomes: readonly DeliveryOutcome[]): DeliveryOutcome {
  // One route's settlement or refusal is the answer as it stands.
  if (outcomes.length === 1 && outcomes[0].kind !== "captured") return outcomes[0];
  const refusal = outcomes.find((x) => x.kind === "refused");
  if (refusal) return refusal;
  const settled = outcomes.filter((x) => x.kind === "settled");
  const reply = settled.find((x) => x.reply)?.reply;
  return {
    kind: "settled",
    instances: settled.flatMap((x) => x.instances),
    ...(reply ? { reply } : {}),
  };
}
