/**
 * Effects: everything a step asks the runtime to commit together with the
 * new snapshot, in one transaction. They are plain data in the order they
 * happened; a wait armed and resolved within the same step never appears.
 *
 * @module
 */
import type { Diagnostic } from "../core/mod.ts";
import type { ReplyMode } from "../bpmn/mod.ts";
import type { Wait } from "./state.ts";

/** An answer to the caller that started the instance (`q:reply`). */
export interface ReplyEffect {
  readonly node: string;
  readonly mode: ReplyMode;
  readonly contentType?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Respond-and-continue: flush now, the instance finishes later. */
  readonly continue: boolean;
}

/** An outbound message (`q:send`, or a channel-call request). */
export interface EmissionEffect {
  readonly node: string;
  readonly channel?: string;
  readonly destination?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly contentType?: string;
  /** Stable per attempt, so a counterpart can deduplicate redeliveries. */
  readonly idempotencyKey: string;
}

/** A wait the runtime must register (a message correlation, a due timer, a signal subscription). */
export interface WaitEffect {
  readonly id: number;
  readonly kind: "message" | "timer" | "signal";
  readonly purpose: Wait["purpose"];
  readonly process: string;
  readonly node: string;
  readonly channel?: string;
  readonly messageType?: string;
  readonly signal?: string;
  /** Timers: due instant, epoch milliseconds. */
  readonly due?: number;
}

/**
 * The idempotency key of a channel-call request: one per instance, node,
 * token and attempt, so a re-drive carries a fresh key and the runtime can
 * tell the live attempt's deliveries from a dead one's.
 */
export function requestKey(
  instanceId: string,
  nodeId: string,
  token: { readonly id: number; readonly attempt?: number },
): string {
  return `${instanceId}:${nodeId}:${token.id}:${token.attempt ?? 1}`;
}

/** A correlation alias to record or retire. */
export interface AliasEffect {
  readonly name: string;
  readonly value: string;
  readonly unique: boolean;
  readonly onConflict: "correlate" | "reject";
}

/** A data-store write. */
export interface StoreWriteEffect {
  readonly store: string;
  readonly key: string;
  /** Replace only this field of the stored map. */
  readonly field?: string;
  /** The value, converted to plain JSON-shaped data. */
  readonly value: unknown;
  /** Compare-and-set: the revision read earlier (`expect="unchanged"`). */
  readonly expectRev?: number;
}

/** A signal for other instances (this instance's own catches were already triggered). */
export interface SignalEffect {
  readonly name: string;
  readonly payload: unknown;
}

/** One audit journal entry. */
export interface AuditEvent {
  readonly seq: number;
  readonly at: number;
  readonly type: string;
  readonly node?: string;
  readonly flow?: string;
  readonly code?: string;
}

/** Everything one step produced. */
export interface Effects {
  readonly replies: readonly ReplyEffect[];
  readonly emissions: readonly EmissionEffect[];
  /** Idempotency keys of earlier requests the runtime should withdraw. */
  readonly withdrawals: readonly string[];
  readonly waitsArmed: readonly WaitEffect[];
  readonly waitsResolved: readonly number[];
  readonly aliasesRecorded: readonly AliasEffect[];
  readonly aliasesRetired: readonly AliasEffect[];
  readonly storeWrites: readonly StoreWriteEffect[];
  readonly signals: readonly SignalEffect[];
  readonly audit: readonly AuditEvent[];
  /** Coverage paths this step completed. */
  readonly coverage: readonly string[];
  /** Non-fatal findings (an uncaught escalation, a listener that threw). */
  readonly diagnostics: readonly Diagnostic[];
}

const NONE: readonly never[] = Object.freeze([]);

/** Collects effects during a step; lists stay unallocated until used. */
export class EffectsBuilder {
  replies?: ReplyEffect[];
  emissions?: EmissionEffect[];
  withdrawals?: string[];
  armed?: Map<number, WaitEffect>;
  resolved?: number[];
  aliasesRecorded?: AliasEffect[];
  aliasesRetired?: AliasEffect[];
  storeWrites?: StoreWriteEffect[];
  signals?: SignalEffect[];
  audit?: AuditEvent[];
  coverage?: string[];
  diagnostics?: Diagnostic[];

  /** Records a wait to arm. */
  arm(wait: WaitEffect): void {
    (this.armed ??= new Map()).set(wait.id, wait);
  }

  /** Records a wait to resolve; one armed in this same step simply disappears. */
  resolve(id: number): void {
    if (this.armed?.delete(id)) return;
    (this.resolved ??= []).push(id);
  }

  /** The collected effects. */
  build(): Effects {
    return {
      replies: this.replies ?? NONE,
      emissions: this.emissions ?? NONE,
      withdrawals: this.withdrawals ?? NONE,
      waitsArmed: this.armed ? [...this.armed.values()] : NONE,
      waitsResolved: this.resolved ?? NONE,
      aliasesRecorded: this.aliasesRecorded ?? NONE,
      aliasesRetired: this.aliasesRetired ?? NONE,
      storeWrites: this.storeWrites ?? NONE,
      signals: this.signals ?? NONE,
      audit: this.audit ?? NONE,
      coverage: this.coverage ?? NONE,
      diagnostics: this.diagnostics ?? NONE,
    };
  }
}

/** Effects of a step that did nothing (a refused input). */
export const NO_EFFECTS: Effects = Object.freeze(new EffectsBuilder().build());
