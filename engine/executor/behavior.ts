/**
 * The contract between the step loop and the per-element behaviour modules
 * under `behaviors/`. A behaviour decides what its element does with a
 * token; the step loop ({@link Execution}) owns tokens, scopes, waits,
 * variables and effects, and is the only thing a behaviour changes state
 * through. Behaviours never see persistence or transports.
 *
 * @module
 */
import type { FeelContext, FeelValue } from "../../lang/feel/mod.ts";
import type {
  ExecutionPlan,
  FlowIndex,
  NodeIndex,
  PlanExpression,
  PlanHeader,
  PlanNode,
  ProcessPlan,
  ScopeIndex,
} from "../bpmn/mod.ts";
import type { EffectsBuilder } from "./effects.ts";
import type { InboundMessage } from "./input.ts";
import type { Ports } from "./ports.ts";
import type {
  BufferedWrite,
  CompensationEntry,
  InstanceState,
  ScopeInstance,
  ScopeKind,
  Token,
  TokenState,
  Wait,
} from "./state.ts";

/** What one element kind does. */
export interface Behavior {
  /** A token arrived at the node. */
  activate(x: Execution, token: Token): void | Promise<void>;
  /**
   * A wait of the token's own (purpose `catch`, `response`, `retry` or
   * `timeout`) was triggered; the wait is already resolved.
   */
  trigger?(x: Execution, token: Token, wait: Wait, message?: InboundMessage): void | Promise<void>;
  /** A failed attempt was reported for the waiting token (e.g. a poisoned delivery). */
  fail?(x: Execution, token: Token, code: string, message: string): void;
  /** The token is being withdrawn (an interrupting event or termination): undo what is outstanding. */
  terminate?(x: Execution, token: Token): void;
  /** The scope instance the token runs (sub-process body, called process) has nothing left to do. */
  childDone?(x: Execution, token: Token, child: ScopeInstance): void;
  /**
   * Ad-hoc bodies: `inner`, a node of the body the token runs, completed
   * and is about to move on. True when the behaviour ended the body (and
   * `inner` with it), so the token must not move.
   */
  innerCompleted?(x: Execution, token: Token, body: ScopeInstance, inner: Token): boolean;
  /** Loop behaviours: one run of the looped activity finished (`run` is its scope instance). */
  innerDone?(x: Execution, token: Token, run: ScopeInstance): void;
  /** Joins: the agenda drained with these tokens waiting at the node in one scope instance. */
  settle?(x: Execution, joined: Token[]): void;
}

/** What {@link Execution.complete} should do besides leaving the node. */
export interface CompleteOptions {
  /** The behaviour already applied the output associations (call activities map their own). */
  readonly mapped?: boolean;
  /** A rendered body for the node's `q:reply`. */
  readonly rendered?: { readonly body: string; readonly contentType?: string };
  /** The reply body when the node has no result of its own (its data inputs). */
  readonly replyBody?: FeelValue;
  /** Take exactly these flows (gateways choose their own). */
  readonly flows?: readonly FlowIndex[];
  /** What completed inside the node's scope, kept for compensating it later. */
  readonly log?: CompensationEntry[];
  /** The finished body's variables, kept for its compensation event sub-process. */
  readonly vars?: ReadonlyMap<string, FeelValue>;
  /** Names the output associations see besides the variables (a called process's variables). */
  readonly overlay?: ReadonlyMap<string, FeelValue>;
}

/** A wait to arm for a token. */
export type WaitSpec = Omit<Wait, "id" | "process" | "token">;

/** A trigger delivered to an event sub-process start. */
export interface EventSubProcessTrigger {
  /** The wait that fired (message, timer, signal, conditional starts). */
  readonly wait?: Wait;
  readonly message?: InboundMessage;
  /** Variables set in the run (error and escalation details). */
  readonly vars?: Map<string, FeelValue>;
}

/** The step loop as behaviours see it. */
export interface Execution {
  readonly plan: ExecutionPlan;
  readonly state: InstanceState;
  readonly ports: Ports;
  /** The step's clock reading; every timer and `now()` in the step uses it. */
  readonly now: number;
  readonly effects: EffectsBuilder;

  // Navigation
  /** The process plan named `id`. */
  process(id: string): ProcessPlan;
  scope(id: number): ScopeInstance;
  processOf(token: Token): ProcessPlan;
  nodeOf(token: Token): PlanNode;

  // Expressions and variables
  /** The variables visible to the token, with `overlay` on top. */
  context(token: Token, overlay?: ReadonlyMap<string, FeelValue>): FeelContext;
  /** Evaluates a value; an evaluation error fails the instance. */
  value(expr: PlanExpression, token: Token, overlay?: ReadonlyMap<string, FeelValue>): FeelValue;
  /** Evaluates a condition: only boolean true is true. */
  test(expr: PlanExpression, token: Token, overlay?: ReadonlyMap<string, FeelValue>): boolean;
  /** Evaluates a value in a given context. */
  evaluateIn(expr: PlanExpression, context: FeelContext): FeelValue;
  /** Evaluates a condition in a given context. */
  testIn(expr: PlanExpression, context: FeelContext): boolean;
  /** A variable as seen from the token (undefined when no scope defines it). */
  lookup(token: Token, name: string): FeelValue | undefined;
  /** Sets a variable (or dotted path) as seen from the token. */
  set(token: Token, path: string, value: FeelValue): void;
  /** Binds an inbound message's payload where the consuming node says; answers the bound value. */
  bindMessage(
    token: Token,
    node: PlanNode,
    message: InboundMessage | undefined,
  ): FeelValue | undefined;
  /** Data inputs of the node (store reads included). */
  inputs(token: Token): Map<string, FeelValue> | Promise<Map<string, FeelValue>>;
  /** Applies the node's output associations with `values` as what the node handed back. */
  outputs(token: Token, values: ReadonlyMap<string, FeelValue>): void;
  /**
   * The sensitivity class a value computed from `names` carries: that of
   * the first name which is a sensitive data input of the token's node (as
   * read by {@link inputs} in this step), a marked variable, or a variable
   * the token's process declares sensitive; undefined when none is.
   */
  classOf(token: Token, names: Iterable<string>): string | undefined;
  /** Marks a variable name sensitive with `dataClass` (nothing when undefined; a mark stays). */
  mark(name: string, dataClass: string | undefined): void;
  /** Buffers a data-store write (committed with the step, or with the enclosing transaction). */
  write(token: Token, write: BufferedWrite): void;
  /** Commits a transaction's buffered writes one level out. */
  commit(scope: ScopeInstance): void;

  // Token movement
  /** The node's work is done: outputs, aliases, reply, then its outgoing flows. */
  complete(token: Token, result?: FeelValue, options?: CompleteOptions): void;
  /** Leaves the node without outputs or reply (after respond-and-continue, a link throw). */
  depart(
    token: Token,
    flows?: readonly FlowIndex[],
    log?: CompensationEntry[],
    vars?: ReadonlyMap<string, FeelValue>,
  ): void;
  /** Moves the token along `flows` (the first keeps the token, others get new ones). */
  take(token: Token, flows: readonly FlowIndex[]): void;
  /** Continues the token at another node of its scope without a flow (link events). */
  jump(token: Token, node: NodeIndex): void;
  /** The token ends here; its scope completes when nothing is left in it. */
  consume(token: Token): void;
  /** Removes a token merged into another at a join (the scope completes if it was the last). */
  absorb(token: Token): void;
  /** The token stays at its node; its boundary events are armed on the first park. */
  park(token: Token, state: TokenState): void;
  /** Arms a wait for the token (or, with `spec.scope`, for an event sub-process start). */
  arm(token: Token | undefined, spec: WaitSpec): Wait;
  /** Resolves one wait. */
  resolve(wait: Wait): void;
  /** Resolves every wait the token holds for its own node (not its boundary events). */
  resolveOwn(token: Token): void;
  /** The wait a catching node needs (undefined for thrown triggers: error, escalation, ...). */
  triggerWait(
    node: PlanNode,
    purpose: Wait["purpose"],
    context: () => FeelContext,
  ): WaitSpec | undefined;
  /** Opens a scope instance run by the token (or an event sub-process run) and arms its event sub-processes. */
  openScope(spec: ScopeSpec): ScopeInstance;
  /** Removes a finished scope instance and its event sub-process waits. */
  closeScope(scope: ScopeInstance): void;
  /** Places a new token at `node` in `scope` and queues it. */
  spawn(scope: ScopeInstance, node: NodeIndex): Token;
  /** Withdraws the token and everything under it (no completion). */
  terminate(token: Token): void;
  /** Ends every token and child scope inside `scope`, leaving the scope itself open. */
  clear(scope: ScopeInstance): void;

  // Throwing
  /** Throws a BPMN error from the token's node (an activity raising it, or an end event). */
  throwError(token: Token, code: string, message: string): void;
  /** Throws an escalation; false when nothing caught it. */
  escalate(token: Token, code: string | undefined): boolean;
  /** Broadcasts a signal inside the instance and to other instances. */
  signal(name: string, payload: FeelValue): void;
  /** Compensates completed activities of the token's scope, then continues the token. */
  compensate(token: Token, activity: NodeIndex | undefined, end: boolean): void;
  /** A cancel end event: rolls the transaction back, compensates, leaves by the cancel boundary. */
  cancelTransaction(token: Token): void;
  /** Ends every token of the token's scope; the scope then completes. */
  terminateScope(token: Token): void;
  /** Records a failed task attempt: retry after backoff, or fail the instance. */
  failAttempt(token: Token, code: string, message: string): void;
  /** Counts an attempt of a task with a retry policy; its number (1 for the first). */
  attempt(token: Token): number;
  /** Fails the instance with a code, at the token's node. */
  fail(
    token: Token | undefined,
    code: string,
    message: string,
    attributes?: Record<string, string | number | boolean>,
  ): never;

  // Messages
  /** Headers from `q:header` expressions. */
  headers(token: Token, headers: readonly PlanHeader[]): Record<string, string>;
  /** An idempotency key for the token's current attempt at its node. */
  idempotencyKey(token: Token): string;
  /** The message body of a throwing node: its data inputs as a context (one input: that value). */
  body(token: Token): FeelValue | Promise<FeelValue>;
  /** Converts a FEEL value to plain data for an effect. */
  plain(value: FeelValue): unknown;
}

/** How to open a scope instance. */
export interface ScopeSpec {
  readonly kind: ScopeKind;
  readonly process: string;
  readonly planScope: ScopeIndex;
  readonly parent?: ScopeInstance;
  /** The token in the parent scope that runs this scope. */
  readonly token?: Token;
  readonly interrupting?: boolean;
  readonly vars?: Map<string, FeelValue>;
  /** Counted in the parent's live count (event sub-process runs, multi-instance runs). */
  readonly counted?: boolean;
}
