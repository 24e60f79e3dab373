/**
 * A minimal in-process stand-in for the runtime around the executor, for
 * the end-to-end flows: routes a message on a channel to the process it
 * starts or, through a `q:alias` correlation, to the parked instance it
 * resumes; enforces unique aliases; commits each step's effects (data-store
 * writes with compare-and-set, aliases, replies, emissions, coverage) the
 * way the runtime commits them with the snapshot.
 * Snapshots are written and read back between steps, as a parked instance
 * would be.
 *
 * @module
 */
import { formatFeel, toJs } from "../../lang/feel/mod.ts";
import type { ExecutionPlan, Subscription } from "../../engine/bpmn/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import {
  decodeSnapshot,
  type Effects,
  type EmissionEffect,
  encodeSnapshot,
  type InboundMessage,
  type InstanceState,
  type Ports,
  type ReplyEffect,
  step,
  type StepInput,
  type StoreReadRequest,
  type StoreRecord,
} from "../../engine/executor/mod.ts";

/** A key/value data store with revisions, as the runtime's store provider would hold it. */
export class MemoryStore {
  readonly rows = new Map<string, { value: unknown; rev: number }>();
  /** Every read, in order (to check row locks were asked for). */
  readonly reads: StoreReadRequest[] = [];

  /** Seeds a row. */
  put(store: string, key: string, value: unknown): void {
    this.rows.set(`${store}/${key}`, { value, rev: 1 });
  }

  /** The stored value. */
  get(store: string, key: string): unknown {
    return this.rows.get(`${store}/${key}`)?.value;
  }

  /** The store port. */
  read(request: StoreReadRequest): StoreRecord | undefined {
    this.reads.push(request);
    return this.rows.get(`${request.store}/${request.key}`);
  }

  /** Applies a step's writes all together, or none when a compare-and-set fails. */
  commit(effects: Effects): boolean {
    for (const w of effects.storeWrites) {
      const row = this.rows.get(`${w.store}/${w.key}`);
      if (w.expectRev !== undefined && row?.rev !== w.expectRev) return false;
    }
    for (const w of effects.storeWrites) {
      const id = `${w.store}/${w.key}`;
      const row = this.rows.get(id);
      const value = w.field === undefined
        ? w.value
        : { ...(row?.value as Record<string, unknown> ?? {}), [w.field]: w.value };
      this.rows.set(id, { value, rev: (row?.rev ?? 0) + 1 });
    }
    return true;
  }
}

/** What happened to one inbound message. */
export interface Delivery {
  readonly accepted: boolean;
  readonly instanceId?: string;
  /** Why the message was refused. */
  readonly refusal?: string;
  readonly replies: readonly ReplyEffect[];
}

/** The runtime stand-in. */
export class MiniRuntime {
  readonly plan: ExecutionPlan;
  readonly clock = new ManualClock("2026-03-01T09:00:00Z");
  readonly store = new MemoryStore();
  /** Snapshots of every instance, as the engine database holds them. */
  readonly snapshots = new Map<string, Uint8Array>();
  /** Live aliases: `name=value` → instance id. */
  readonly aliases = new Map<string, string>();
  readonly emissions: EmissionEffect[] = [];
  /** Covered route names. */
  readonly covered = new Set<string>();
  readonly #ports: Ports;
  #next = 0;

  constructor(plan: ExecutionPlan, ports: Omit<Ports, "clock" | "store"> = {}) {
    this.plan = plan;
    this.#ports = { ...ports, clock: this.clock, store: this.store };
  }

  /** The decoded state of an instance. */
  state(instanceId: string): InstanceState {
    const bytes = this.snapshots.get(instanceId);
    if (!bytes) throw new Error(`no instance ${instanceId}`);
    const r = decodeSnapshot(this.plan, bytes);
    if (r.diagnostics) throw new Error(r.diagnostics[0].message);
    return r.state;
  }

  /** Delivers a message on a channel: a start, or a relay to a parked instance. */
  deliver(channel: string, message: InboundMessage): Promise<Delivery> {
    const subs = (this.plan.subscriptionsByChannel.get(channel) ?? []).filter((s) =>
      s.messageTypeValue === undefined || s.messageTypeValue === message.messageType
    );
    const start = subs.find((s) => s.role === "start");
    if (start) {
      const instanceId = `transfer-${++this.#next}`;
      return this.#commit(instanceId, undefined, {
        type: "start",
        instanceId,
        process: start.process,
        node: start.nodeId,
        message,
      });
    }
    for (const sub of subs) {
      const instanceId = this.#correlate(sub, message);
      if (instanceId === undefined) continue;
      const state = this.state(instanceId);
      const wait = [...state.waits.values()].find((w) =>
        w.node === sub.node && w.kind === "message"
      );
      if (!wait) continue;
      return this.#commit(instanceId, state, { type: "message", wait: wait.id, message });
    }
    return Promise.resolve({ accepted: false, refusal: "uncorrelated", replies: [] });
  }

  #correlate(sub: Subscription, message: InboundMessage): string | undefined {
    for (const alias of sub.aliases) {
      const r = alias.expression.compiled.evaluate({
        [sub.variable]: message.payload,
        header: message.headers ?? {},
      });
      if (r.diagnostics !== undefined || r.value === null) continue;
      const value = typeof r.value === "string" ? r.value : formatFeel(r.value);
      const id = this.aliases.get(`${alias.name}=${value}`);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  // One step, committed like the runtime's single transaction: aliases
  // checked, store writes applied, snapshot stored — or nothing at all.
  async #commit(
    instanceId: string,
    state: InstanceState | undefined,
    input: StepInput,
  ): Promise<Delivery> {
    const r = await step(this.plan, state, input, this.#ports);
    if (r.refusal) return { accepted: false, refusal: r.refusal.code, replies: [] };
    const e = r.effects;
    for (const a of e.aliasesRecorded) {
      const owner = this.aliases.get(`${a.name}=${a.value}`);
      if (a.unique && owner !== undefined && owner !== instanceId) {
        return { accepted: false, refusal: "duplicate", replies: [] };
      }
    }
    if (!this.store.commit(e)) return { accepted: false, refusal: "conflict", replies: [] };
    for (const a of e.aliasesRecorded) this.aliases.set(`${a.name}=${a.value}`, instanceId);
    for (const a of e.aliasesRetired) this.aliases.delete(`${a.name}=${a.value}`);
    this.emissions.push(...e.emissions);
    for (const c of e.coverage) this.covered.add(c);
    this.snapshots.set(instanceId, encodeSnapshot(this.plan, r.state));
    return { accepted: true, instanceId, replies: e.replies };
  }
}

/** A template port that renders `template: {json of the named variables}`. */
export function echoTemplates(names: readonly string[]): NonNullable<Ports["templates"]> {
  return {
    render({ template, variables }) {
      const picked: Record<string, unknown> = {};
      for (const n of names) if (variables.has(n)) picked[n] = toJs(variables.get(n)!);
      return { body: `${template}: ${JSON.stringify(picked)}`, contentType: "text/plain" };
    },
  };
}
