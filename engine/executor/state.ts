/**
 * The explicit instance state the executor advances: scope instances with
 * their variables, the tokens inside them, the waits the instance is parked
 * on, and the bookkeeping a snapshot must carry (completed nodes, routed
 * start, attempt counters, coverage progress, recorded aliases, sensitive
 * variable names, audit sequence, failure). Everything here is plain data:
 * the snapshot codec writes exactly this, and a step works on a copy
 * ({@link cloneState}) so the caller's state is never changed.
 *
 * Ids of scopes, tokens, waits and compensation runs come from one counter
 * (`nextId`), so they are deterministic and ascending; maps keep them in
 * ascending order, which is the order every scan visits them in.
 *
 * @module
 */
import type { FeelValue } from "../../lang/feel/mod.ts";
import type { FlowIndex, NodeIndex, ScopeIndex, TimerSpec } from "../bpmn/mod.ts";

/** Where an instance stands between steps. */
export type InstanceStatus = "RUNNING" | "WAITING" | "COMPLETED" | "TERMINATED" | "FAILED";

/** What a scope instance is. */
export type ScopeKind =
  | "process"
  | "subProcess"
  | "transaction"
  | "adHocSubProcess"
  | "eventSubProcess"
  | "call"
  | "multiInstance"
  | "instance"
  | "loop"
  | "compensation";

/** Multi-instance body bookkeeping. */
export interface MultiInstanceState {
  /** Number of instances. */
  total: number;
  /** Index of the next instance to start. */
  next: number;
  completed: number;
  active: number;
  /** The input collection, when the body iterates one. */
  items?: FeelValue[];
  /** Collected output elements, by instance index. */
  outputs: FeelValue[];
}

/** A data-store write waiting for its transaction to commit. */
export interface BufferedWrite {
  store: string;
  key: string;
  field?: string;
  value: FeelValue;
  expectRev?: number;
}

/** A completed activity that can be compensated. */
export interface CompensationEntry {
  /** The completed activity. */
  node: NodeIndex;
  /** Process the node belongs to. */
  process: string;
  /** Entries of a completed sub-process, compensated when it has no handler of its own. */
  children?: CompensationEntry[];
  /**
   * Sub-processes compensated by an event sub-process: the body's variables
   * as they were when it completed, which that handler runs with.
   */
  vars?: Map<string, FeelValue>;
}

/** A running compensation: handlers run one after another, newest first. */
export interface CompensationRun {
  id: number;
  /** Scope instance the handlers run in. */
  scope: number;
  /** Entries still to compensate, next first. */
  queue: CompensationEntry[];
  /** Scope instance each queued entry's handler runs in (parallel to `queue`). */
  queueScopes: number[];
  /** Handler token currently running. */
  handler?: number;
  /** Scope instances created to host handlers of completed sub-processes. */
  temporary: number[];
  /** What happens when the last handler is done. */
  then: Continuation;
}

/**
 * What a finished compensation run continues with. A `detached` run
 * (`waitForCompletion="false"`) has nothing to continue: the thrower went
 * on at once, and the run only keeps its scope from completing.
 */
export type Continuation =
  | { kind: "detached" }
  | { kind: "leave"; token: number }
  | { kind: "consume"; token: number }
  | {
    kind: "boundary";
    /** The transaction's token in the parent scope. */
    token: number;
    /** The cancel or error boundary taken afterwards. */
    boundary: NodeIndex;
    error?: { code: string; message: string };
  };

/** A complex gateway between firing and reset. */
export interface Gate {
  node: NodeIndex;
  /** Incoming flows whose token this round already took. */
  consumed: FlowIndex[];
}

/** A process body, sub-process body, event sub-process run, called process or loop body. */
export interface ScopeInstance {
  id: number;
  kind: ScopeKind;
  /** Process whose plan the scope's nodes belong to. */
  process: string;
  /** The plan scope (for loop bodies: the scope of the looping node). */
  planScope: ScopeIndex;
  parent?: number;
  /** The token in the parent scope this scope belongs to (absent for the root and event sub-processes). */
  token?: number;
  /** Event sub-process runs: whether they interrupted their parent. */
  interrupting?: boolean;
  /**
   * A completed sub-process's body reopened to run its compensation event
   * sub-process: the compensation run to report to when that is done.
   */
  handler?: number;
  vars: Map<string, FeelValue>;
  /**
   * Called processes: the names the called process wrote or created (what
   * returns to a caller without output associations). Absent on calls
   * started by an engine that did not track writes: all variables return.
   */
  written?: Set<string>;
  mi?: MultiInstanceState;
  /** Standard loops: iterations run so far. */
  loopCount?: number;
  /** Transactions: writes committed when the transaction ends normally. */
  writes?: BufferedWrite[];
  /** Completed compensable activities, oldest first. */
  compensation?: CompensationEntry[];
  /** Complex gateways that fired and still absorb the late tokens of this round. */
  gates?: Gate[];
  /**
   * Sequential ad-hoc bodies: how many of the plan scope's entries were
   * started (all of them once the completion condition held).
   */
  adHocNext?: number;
  /** Tokens in the scope plus counted child scopes (event sub-process runs, multi-instance runs). */
  live: number;
}

/** What a token is doing at its node. */
export type TokenState =
  | "ready"
  | "triggered"
  | "waiting"
  | "joined"
  | "child"
  | "backoff"
  | "continue"
  | "compensating";

/** A token: a position in a scope instance. */
export interface Token {
  id: number;
  scope: number;
  node: NodeIndex;
  state: TokenState;
  /** The flow the token arrived by (joins read it). */
  arrival?: FlowIndex;
  /** The scope instance the node runs (sub-processes, loop bodies, called processes). */
  child?: number;
  /** The activity run inside a loop body (it does not loop again). */
  inner?: boolean;
  /** Compensation handlers: the run to report to. */
  handler?: number;
  /** Channel calls: the attempt the outstanding request belongs to. */
  attempt?: number;
}

/** Kinds of wait the runtime sees (`conditional` stays inside the executor). */
export type WaitKind = "message" | "timer" | "signal" | "conditional";

/** Why a wait exists. */
export type WaitPurpose =
  | "catch"
  | "boundary"
  | "gateway"
  | "eventSubProcess"
  | "response"
  | "retry"
  | "reenter"
  | "timeout"
  | "continue";

/** Something the instance is parked on. */
export interface Wait {
  id: number;
  kind: WaitKind;
  purpose: WaitPurpose;
  /** Process of `node`. */
  process: string;
  /** The catch event, boundary event, event sub-process start, gateway target or task. */
  node: NodeIndex;
  /** The waiting token (absent for event sub-process starts). */
  token?: number;
  /** Event sub-process starts: the scope instance they trigger in. */
  scope?: number;
  channel?: string;
  messageType?: string;
  signal?: string;
  /** Timers: due instant, epoch milliseconds. */
  due?: number;
  /** Timer cycles: occurrences fired so far. */
  fired?: number;
  /**
   * Timer cycles armed from a FEEL expression: the cycle it gave when armed,
   * which every later occurrence follows (a re-evaluation could differ).
   */
  timer?: TimerSpec;
  /** Conditionals: the condition's value at the last evaluation. */
  last?: boolean;
}

/** A correlation alias the instance recorded. */
export interface RecordedAlias {
  name: string;
  value: string;
  unique: boolean;
  onConflict: "correlate" | "reject";
}

/** Why an instance failed. */
export interface Failure {
  code: string;
  message: string;
  /** The node being executed, when there was one. */
  node?: string;
  attributes?: Record<string, string | number | boolean>;
}

/** The whole state of one process instance. */
export interface InstanceState {
  instanceId: string;
  /** The process the instance runs (its root scope's process). */
  process: string;
  status: InstanceStatus;
  /** The start node the instance was routed through. */
  startNode?: string;
  /** Next id for scopes, tokens, waits and compensation runs. */
  nextId: number;
  scopes: Map<number, ScopeInstance>;
  tokens: Map<number, Token>;
  waits: Map<number, Wait>;
  compensations: Map<number, CompensationRun>;
  /** Node ids completed at least once (`process#node` outside the root process). */
  completed: Set<string>;
  /** Attempts made per node id, present only for nodes with a retry policy. */
  attempts: Map<string, number>;
  /** Coverage: flows of each declared path matched so far, in order. */
  coverage: Map<string, number>;
  aliases: RecordedAlias[];
  /** Data-store revisions read for optimistic writes, by `store\u0000key`. */
  revisions: Map<string, number>;
  /**
   * Variables marked sensitive while the instance ran, by name, with the
   * class that marked them (a store's `dataClass`, or `sensitive` for a
   * value computed from a `q:variables` sensitive variable). A mark is
   * never removed: whatever the variable holds later stays redacted.
   */
  sensitive: Map<string, string>;
  auditSeq: number;
  failure?: Failure;
}

/** A fresh, empty state for `instanceId` running `process`. */
export function emptyState(instanceId: string, process: string): InstanceState {
  return {
    instanceId,
    process,
    status: "RUNNING",
    nextId: 1,
    scopes: new Map(),
    tokens: new Map(),
    waits: new Map(),
    compensations: new Map(),
    completed: new Set(),
    attempts: new Map(),
    coverage: new Map(),
    aliases: [],
    revisions: new Map(),
    sensitive: new Map(),
    auditSeq: 0,
  };
}

/**
 * A copy a step may change freely. Variable values are immutable FEEL
 * values, so maps and records are copied and values shared.
 */
export function cloneState(s: InstanceState): InstanceState {
  const scopes = new Map<number, ScopeInstance>();
  for (const [id, scope] of s.scopes) {
    const copy: ScopeInstance = { ...scope, vars: new Map(scope.vars) };
    if (scope.mi) copy.mi = { ...scope.mi, outputs: [...scope.mi.outputs] };
    if (scope.writes) copy.writes = [...scope.writes];
    if (scope.compensation) copy.compensation = [...scope.compensation];
    if (scope.written) copy.written = new Set(scope.written);
    if (scope.gates) copy.gates = scope.gates.map((g) => ({ ...g, consumed: [...g.consumed] }));
    scopes.set(id, copy);
  }
  const tokens = new Map<number, Token>();
  for (const [id, token] of s.tokens) tokens.set(id, { ...token });
  const waits = new Map<number, Wait>();
  for (const [id, wait] of s.waits) waits.set(id, { ...wait });
  const compensations = new Map<number, CompensationRun>();
  for (const [id, run] of s.compensations) {
    compensations.set(id, {
      ...run,
      queue: [...run.queue],
      queueScopes: [...run.queueScopes],
      temporary: [...run.temporary],
    });
  }
  const copy: InstanceState = {
    ...s,
    scopes,
    tokens,
    waits,
    compensations,
    completed: new Set(s.completed),
    attempts: new Map(s.attempts),
    coverage: new Map(s.coverage),
    aliases: [...s.aliases],
    revisions: new Map(s.revisions),
    sensitive: new Map(s.sensitive),
  };
  if (s.failure) copy.failure = { ...s.failure };
  return copy;
}

/** True when the instance can take no further input. */
export function isTerminal(status: InstanceStatus): boolean {
  return status === "COMPLETED" || status === "TERMINATED" || status === "FAILED";
}
