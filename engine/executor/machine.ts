/**
 * The step loop. It owns the instance state for the duration of one step:
 * a FIFO agenda of tokens to activate, token movement along flows, scope
 * instances and their completion, waits, variables, errors and escalations
 * on their way to a handler, compensation runs, and the effects and
 * listener calls all of that produces. What each element does with a token
 * lives in its behaviour module (`behaviors/`); this file never looks at an
 * element kind except to find that module.
 *
 * Order is deterministic: the agenda is first-in first-out, every scan
 * visits ids in ascending order, and the clock is read once per step.
 *
 * @module
 */
import {
  type EvaluateOptions,
  FeelContext,
  type FeelValue,
  formatFeel,
  toJs,
} from "../../lang/feel/mod.ts";
import type {
  ExecutionPlan,
  FlowIndex,
  NodeIndex,
  PlanExpression,
  PlanFlow,
  PlanHeader,
  PlanNode,
  PlanTimerExpression,
  ProcessPlan,
  TimerSpec,
} from "../bpmn/mod.ts";
import type { CompleteOptions, Execution, ScopeSpec, WaitSpec } from "./behavior.ts";
import { behaviorOf } from "./behaviors/mod.ts";
import { armEventSubProcesses, startEventSubProcess } from "./behaviors/event_sub_process.ts";
import { compensate, dropRun, handlerBodyDone, handlerDone } from "./_compensation.ts";
import { cancelTransaction, escalate, throwError } from "./_propagation.ts";
import { EffectsBuilder, type ReplyEffect, requestKey, type WaitEffect } from "./effects.ts";
import type { InboundMessage } from "./input.ts";
import type { ExecutionListener } from "./listeners.ts";
import { Journal } from "./_journal.ts";
import type { Ports } from "./ports.ts";
import type {
  BufferedWrite,
  CompensationEntry,
  InstanceState,
  InstanceStatus,
  ScopeInstance,
  Token,
  TokenState,
  Wait,
} from "./state.ts";
import { lookup, setVariable, toFeel, visible } from "./variables.ts";
import { declareDataObjects, readInputs, writeOutputs } from "./_data.ts";
import { ExecutorCode, StepFailure } from "./_failure.ts";
import { StoreAccess } from "./_store.ts";
import { DECLARED_SENSITIVE } from "./sensitivity.ts";
import { evaluateTimer, firstDue } from "./_timers.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Node entries one step may make before the instance fails with `SUTRA.RUNTIME.STEP.LIMIT`. */
export const MAX_ACTIVATIONS_PER_STEP = 100_000;

/** One step's execution over a working copy of the state. */
export class Machine implements Execution {
  readonly plan: ExecutionPlan;
  readonly state: InstanceState;
  readonly ports: Ports;
  readonly now: number;
  readonly effects: EffectsBuilder = new EffectsBuilder();
  readonly stores: StoreAccess;
  readonly #agenda: Token[] = [];
  #head = 0;
  readonly #feel: EvaluateOptions;
  readonly journal: Journal;
  /** The inbound message of this step and the node that consumes it (its headers feed aliases). */
  #inbound?: { node: NodeIndex; process: string; message: InboundMessage };
  /** The token being worked on, for failure reports. */
  current?: Token;
  /**
   * Sensitive data inputs of the node each token last read inputs at in
   * this step, by token id (a token keeps its id as it moves on, so the
   * node and scope are kept to tell a later node's reads apart).
   */
  readonly #inputMarks = new Map<
    number,
    { node: NodeIndex; scope: number; marks: Map<string, string> }
  >();

  constructor(
    plan: ExecutionPlan,
    state: InstanceState,
    ports: Ports,
    listeners: readonly ExecutionListener[],
  ) {
    this.plan = plan;
    this.state = state;
    this.ports = ports;
    this.now = ports.clock.now();
    this.#feel = { now: this.now };
    this.stores = new StoreAccess(state, ports.store);
    const audit = plan.processById.get(state.process)?.audit?.capture ?? "lifecycle";
    this.journal = new Journal(state, this.effects, { now: this.now, listeners, capture: audit });
  }

  // ---------------------------------------------------------------- navigation

  process(id: string): ProcessPlan {
    const p = this.plan.processById.get(id);
    if (!p) throw new StepFailure(ExecutorCode.CALL_UNKNOWN, `no process '${id}' in the plan`);
    return p;
  }

  scope(id: number): ScopeInstance {
    return this.state.scopes.get(id)!;
  }

  processOf(token: Token): ProcessPlan {
    return this.process(this.scope(token.scope).process);
  }

  nodeOf(token: Token): PlanNode {
    return this.processOf(token).nodes[token.node];
  }

  // ------------------------------------------------------ expressions, variables

  context(token: Token, overlay?: ReadonlyMap<string, FeelValue>): FeelContext {
    return new FeelContext(visible(this.state, this.scope(token.scope), overlay));
  }

  value(expr: PlanExpression, token: Token, overlay?: ReadonlyMap<string, FeelValue>): FeelValue {
    return this.evaluateIn(expr, this.context(token, overlay));
  }

  /** Evaluates `expr` in a given context; errors fail the instance. */
  evaluateIn(expr: PlanExpression, context: FeelContext): FeelValue {
    const r = expr.compiled.evaluate(context, this.#feel);
    if (r.diagnostics !== undefined) {
      throw this.#expressionFailure(expr, r.diagnostics.map((d) => d.message).join("; "));
    }
    if (r.value === null && r.warnings.length > 0) {
      throw this.#expressionFailure(expr, r.warnings.join("; "));
    }
    return r.value;
  }

  test(expr: PlanExpression, token: Token, overlay?: ReadonlyMap<string, FeelValue>): boolean {
    return this.testIn(expr, this.context(token, overlay));
  }

  /** A condition in a given context: only boolean true is true; null and errors read as false. */
  testIn(expr: PlanExpression, context: FeelContext): boolean {
    const r = expr.compiled.evaluate(context, this.#feel);
    if (r.diagnostics !== undefined) {
      throw this.#expressionFailure(expr, r.diagnostics.map((d) => d.message).join("; "));
    }
    return r.value === true;
  }

  #expressionFailure(expr: PlanExpression, why: string): StepFailure {
    return new StepFailure(
      ExecutorCode.EXPRESSION,
      `expression '${expr.text}' (line ${expr.line}) failed: ${why}`,
      undefined,
      { expression: expr.text, line: expr.line },
    );
  }

  set(token: Token, path: string, value: FeelValue): void {
    setVariable(this.state, this.scope(token.scope), path, value);
  }

  bindMessage(
    token: Token,
    node: PlanNode,
    message: InboundMessage | undefined,
  ): FeelValue | undefined {
    if (!message) return undefined;
    const name = node.subscription?.variable ?? "payload";
    const payload = toFeel(message.payload);
    this.set(token, name, payload);
    for (const [k, v] of Object.entries(message.variables ?? {})) this.set(token, k, toFeel(v));
    this.#inbound = { node: node.index, process: this.scope(token.scope).process, message };
    return payload;
  }

  inputs(token: Token): Map<string, FeelValue> | Promise<Map<string, FeelValue>> {
    if (this.nodeOf(token).inputs.length === 0) return new Map();
    const marks = new Map<string, string>();
    this.#inputMarks.set(token.id, { node: token.node, scope: token.scope, marks });
    return readInputs(this, this.stores, token, marks);
  }

  outputs(token: Token, values: ReadonlyMap<string, FeelValue>): void {
    writeOutputs(this, this.stores, token, undefined, values);
  }

  classOf(token: Token, names: Iterable<string>): string | undefined {
    const read = this.#inputMarks.get(token.id);
    const inputs = read?.node === token.node && read.scope === token.scope ? read.marks : undefined;
    const declared = this.processOf(token).sensitive;
    for (const name of names) {
      const mark = inputs?.get(name) ?? this.state.sensitive.get(name) ??
        (declared.has(name) ? DECLARED_SENSITIVE : undefined);
      if (mark !== undefined) return mark;
    }
    return undefined;
  }

  mark(name: string, dataClass: string | undefined): void {
    if (dataClass !== undefined && !this.state.sensitive.has(name)) {
      this.state.sensitive.set(name, dataClass);
    }
  }

  write(token: Token, write: BufferedWrite): void {
    this.stores.write(this.scope(token.scope), write);
  }

  /** Commits a transaction's buffered writes one level out. */
  commit(scope: ScopeInstance): void {
    this.stores.commit(scope);
  }

  // ------------------------------------------------------------- token movement

  spawn(scope: ScopeInstance, node: NodeIndex): Token {
    const token: Token = { id: this.state.nextId++, scope: scope.id, node, state: "ready" };
    this.state.tokens.set(token.id, token);
    scope.live++;
    this.#agenda.push(token);
    return token;
  }

  complete(token: Token, result?: FeelValue, options?: CompleteOptions): void {
    const node = this.nodeOf(token);
    const loop = node.loop;
    if (token.inner && loop?.type === "multiInstance" && loop.outputCollectionIsOutput) {
      // A run of the activity: its result is its output element; the activity's output
      // associations carry the whole collection once every run is done.
      if (loop.outputElement !== undefined) {
        const name = loop.outputElement;
        const entries = result instanceof FeelContext ? result.entries : options?.overlay;
        this.set(token, name, entries?.get(name) ?? result ?? null);
      }
    } else if (options?.mapped !== true) {
      if (node.resultVariable !== undefined) this.set(token, node.resultVariable, result ?? null);
      if (node.outputs.length > 0) {
        writeOutputs(this, this.stores, token, result, options?.overlay);
      } else if (result instanceof FeelContext && node.resultVariable === undefined) {
        for (const [k, v] of result.entries) this.set(token, k, v);
      }
    }
    if (node.aliases.length > 0 || node.subscription?.role === "start") {
      this.#recordAliases(token, node);
    }
    if (node.reply) {
      this.#reply(token, node, result ?? options?.replyBody, options?.rendered);
      if (node.reply.continue) {
        // Respond-and-continue: the reply goes out with this step's commit;
        // the rest of the flow runs when the runtime fires this wait.
        this.park(token, "continue");
        this.arm(token, { kind: "timer", purpose: "continue", node: node.index, due: this.now });
        return;
      }
    }
    this.depart(token, options?.flows, options?.log, options?.vars);
  }

  /** Leaves the node: compensation bookkeeping, listeners, then onward. */
  depart(
    token: Token,
    flows?: readonly FlowIndex[],
    log?: CompensationEntry[],
    vars?: ReadonlyMap<string, FeelValue>,
  ): void {
    const proc = this.processOf(token);
    const node = proc.nodes[token.node];
    // A sub-process compensated by its own event sub-process is logged with
    // its body's variables, even when nothing inside it was compensable.
    const body = node.compensationStart !== undefined && vars !== undefined;
    if (node.compensationHandler !== undefined || body || (log !== undefined && log.length > 0)) {
      const entry: CompensationEntry = { node: node.index, process: proc.id };
      if (log !== undefined && log.length > 0) entry.children = log;
      if (body) entry.vars = new Map(vars);
      (this.scope(token.scope).compensation ??= []).push(entry);
    }
    this.journal.node("onNodeLeft", "node.left", node.id);
    if (token.inner) {
      // One run of a looped activity: the activity completes when its loop token leaves.
      this.#innerDone(token);
      return;
    }
    this.#markCompleted(proc, node);
    if (token.handler !== undefined) {
      handlerDone(this, token);
      return;
    }
    // The plan's scope kind first: it keeps the scope lookup off the common path.
    if (proc.scopes[node.scope].kind === "adHocSubProcess") {
      const scope = this.scope(token.scope);
      const owner = scope.kind === "adHocSubProcess"
        ? this.state.tokens.get(scope.token!)
        : undefined;
      if (
        owner && behaviorOf(this.nodeOf(owner), owner).innerCompleted!(this, owner, scope, token)
      ) {
        return;
      }
    }
    if (flows !== undefined) {
      this.take(token, flows);
      return;
    }
    const out = node.outgoing;
    if (out.length === 0) {
      this.removeToken(token, true);
    } else if (out.length === 1 && proc.flows[out[0]].condition === undefined) {
      this.#move(token, proc, out[0]);
    } else {
      this.take(token, this.#chooseFlows(token, proc, node));
    }
  }

  // Flows out of an activity or event: every unconditional flow, every
  // conditional flow whose condition holds, the default only when no
  // conditional flow does.
  #chooseFlows(token: Token, proc: ProcessPlan, node: PlanNode): FlowIndex[] {
    const chosen: FlowIndex[] = [];
    let conditionalTaken = false;
    const ctx = this.context(token);
    for (const f of node.outgoing) {
      const flow = proc.flows[f];
      if (f === node.defaultFlow) continue;
      if (flow.condition === undefined) chosen.push(f);
      else if (this.testIn(flow.condition, ctx)) {
        chosen.push(f);
        conditionalTaken = true;
      }
    }
    if (!conditionalTaken && node.defaultFlow !== undefined) chosen.push(node.defaultFlow);
    if (chosen.length === 0) {
      this.fail(token, ExecutorCode.NO_PATH, `no outgoing flow of '${node.id}' can be taken`);
    }
    return chosen;
  }

  take(token: Token, flows: readonly FlowIndex[]): void {
    if (flows.length === 0) {
      this.removeToken(token, true);
      return;
    }
    const proc = this.processOf(token);
    const scope = this.scope(token.scope);
    // Queued in flow order, so parallel branches start in document order.
    this.#move(token, proc, flows[0]);
    for (let i = 1; i < flows.length; i++) {
      const t = this.#newToken(scope, proc.flows[flows[i]].target);
      this.#flowTaken(proc, proc.flows[flows[i]]);
      t.arrival = flows[i];
      this.#agenda.push(t);
    }
  }

  jump(token: Token, node: NodeIndex): void {
    const proc = this.processOf(token);
    this.#markCompleted(proc, proc.nodes[token.node]);
    this.journal.node("onNodeLeft", "node.left", proc.nodes[token.node].id);
    token.node = node;
    delete token.arrival;
    token.state = "ready";
    this.#agenda.push(token);
  }

  #newToken(scope: ScopeInstance, node: NodeIndex): Token {
    const token: Token = { id: this.state.nextId++, scope: scope.id, node, state: "ready" };
    this.state.tokens.set(token.id, token);
    scope.live++;
    return token;
  }

  #move(token: Token, proc: ProcessPlan, f: FlowIndex): void {
    const flow = proc.flows[f];
    this.#flowTaken(proc, flow);
    token.node = flow.target;
    token.arrival = f;
    token.state = "ready";
    this.#agenda.push(token);
  }

  #flowTaken(proc: ProcessPlan, flow: PlanFlow): void {
    if (proc.coverage.length > 0) this.#cover(proc, flow.index);
    this.journal.flow(flow.id);
  }

  // A declared route is covered when the fired flows contain its flows as an
  // ordered subsequence; matching greedily keeps one counter per route.
  #cover(proc: ProcessPlan, f: FlowIndex): void {
    for (const route of proc.coverage) {
      const key = proc.id === this.state.process ? route.path : `${proc.id}#${route.path}`;
      const progress = this.state.coverage.get(key) ?? 0;
      if (progress < route.flows.length && route.flows[progress] === f) {
        this.state.coverage.set(key, progress + 1);
        if (progress + 1 === route.flows.length) (this.effects.coverage ??= []).push(key);
      }
    }
  }

  consume(token: Token): void {
    const proc = this.processOf(token);
    const node = proc.nodes[token.node];
    this.#markCompleted(proc, node);
    this.journal.node("onNodeLeft", "node.left", node.id);
    if (token.handler !== undefined) {
      handlerDone(this, token);
      return;
    }
    this.removeToken(token, true);
  }

  absorb(token: Token): void {
    this.removeToken(token, true);
  }

  /** Removes a token; with `check`, its scope completes when that was the last thing in it. */
  removeToken(token: Token, check: boolean): void {
    this.state.tokens.delete(token.id);
    const scope = this.state.scopes.get(token.scope);
    if (!scope) return;
    scope.live--;
    if (!check) return;
    if (scope.live === 0) this.#scopeDone(scope);
    else this.#completing(scope);
  }

  /**
   * Once a scope's own flow is done and only non-interrupting event
   * sub-process runs keep it open, it is completing, no longer active: its
   * event sub-processes cannot start again, so their starts are disarmed.
   */
  #completing(scope: ScopeInstance): void {
    if (this.process(scope.process).scopes[scope.planScope].eventSubProcesses.length === 0) return;
    let runs = 0;
    for (const s of this.state.scopes.values()) {
      if (s.parent === scope.id && s.kind === "eventSubProcess") runs++;
    }
    if (runs !== scope.live) return;
    for (const w of [...this.state.waits.values()]) {
      if (w.scope === scope.id && w.purpose === "eventSubProcess") this.resolve(w);
    }
  }

  park(token: Token, state: TokenState): void {
    const first = token.state === "ready";
    token.state = state;
    if (!first || token.inner) return;
    const node = this.nodeOf(token);
    if (node.boundaries.length > 0) this.#armBoundaries(token, node);
  }

  #armBoundaries(token: Token, node: PlanNode): void {
    const proc = this.processOf(token);
    for (const b of node.boundaries) {
      const boundary = proc.nodes[b];
      const spec = this.triggerWait(boundary, "boundary", () => this.context(token));
      if (spec) this.arm(token, spec);
    }
  }

  /**
   * The wait a catching node (boundary, event sub-process start, gateway
   * target) needs for its trigger, or undefined for triggers that are
   * thrown rather than awaited (error, escalation, compensation, cancel).
   */
  triggerWait(
    node: PlanNode,
    purpose: Wait["purpose"],
    context: () => FeelContext,
  ): WaitSpec | undefined {
    const trigger = node.trigger;
    if (node.kind === "receiveTask" || node.kind === "userTask") {
      return this.#messageWait(node, purpose);
    }
    switch (trigger?.type) {
      case "message":
        return this.#messageWait(node, purpose);
      case "timer": {
        const expression = trigger.timerExpression;
        const spec = expression ? this.#timerOf(node, expression, context()) : trigger.timer!;
        const wait: WaitSpec = {
          kind: "timer",
          purpose,
          node: node.index,
          due: firstDue(spec, this.now),
        };
        // Later occurrences follow what the expression gave now, whatever the variables become.
        if (expression && spec.kind === "cycle") wait.timer = spec;
        return wait;
      }
      case "signal":
        return { kind: "signal", purpose, node: node.index, signal: trigger.signal ?? node.id };
      case "conditional":
        return {
          kind: "conditional",
          purpose,
          node: node.index,
          // Seen as false until the settle tests it, so a boundary or event sub-process start
          // whose condition already holds when armed fires at once, as on a later change to true.
          last: false,
        };
      default:
        return undefined;
    }
  }

  /** Resolves a timer expression as it is armed; a value that is no timer fails the instance. */
  #timerOf(node: PlanNode, timer: PlanTimerExpression, context: FeelContext): TimerSpec {
    const r = evaluateTimer(timer, context, { ...this.#feel, node: node.id });
    if (r.ok) return r.spec;
    throw new StepFailure(r.code, r.message, node.id, r.attributes);
  }

  #messageWait(node: PlanNode, purpose: Wait["purpose"]): WaitSpec {
    const spec: WaitSpec = { kind: "message", purpose, node: node.index };
    const sub = node.subscription;
    if (sub) {
      spec.channel = sub.channel;
      if (sub.messageTypeValue !== undefined) spec.messageType = sub.messageTypeValue;
    }
    return spec;
  }

  arm(token: Token | undefined, spec: WaitSpec): Wait {
    const process = token ? this.scope(token.scope).process : this.scope(spec.scope!).process;
    const wait: Wait = { id: this.state.nextId++, process, ...spec };
    if (token) wait.token = token.id;
    this.state.waits.set(wait.id, wait);
    if (wait.kind !== "conditional") {
      const proc = this.process(process);
      const effect: Mutable<WaitEffect> = {
        id: wait.id,
        kind: wait.kind,
        purpose: wait.purpose,
        process,
        node: proc.nodes[wait.node].id,
      };
      if (wait.channel !== undefined) effect.channel = wait.channel;
      if (wait.messageType !== undefined) effect.messageType = wait.messageType;
      if (wait.signal !== undefined) effect.signal = wait.signal;
      if (wait.due !== undefined) effect.due = wait.due;
      this.effects.arm(effect);
    }
    return wait;
  }

  resolve(wait: Wait): void {
    if (!this.state.waits.delete(wait.id)) return;
    if (wait.kind !== "conditional") this.effects.resolve(wait.id);
  }

  resolveOwn(token: Token): void {
    for (const w of this.state.waits.values()) {
      if (w.token === token.id && w.purpose !== "boundary") this.resolve(w);
    }
  }

  #resolveAllOf(token: Token): void {
    for (const w of this.state.waits.values()) if (w.token === token.id) this.resolve(w);
  }

  openScope(spec: ScopeSpec): ScopeInstance {
    const scope: ScopeInstance = {
      id: this.state.nextId++,
      kind: spec.kind,
      process: spec.process,
      planScope: spec.planScope,
      vars: spec.vars ?? new Map(),
      live: 0,
    };
    if (spec.parent) scope.parent = spec.parent.id;
    if (spec.token) scope.token = spec.token.id;
    if (spec.interrupting !== undefined) scope.interrupting = spec.interrupting;
    if (spec.kind === "call") scope.written = new Set();
    this.state.scopes.set(scope.id, scope);
    if (spec.counted && spec.parent) spec.parent.live++;
    // Loop bodies and their runs share the plan scope of the looping node;
    // only a scope that runs a body of its own declares data and arms events.
    if (
      spec.kind !== "multiInstance" && spec.kind !== "instance" && spec.kind !== "loop" &&
      spec.kind !== "compensation"
    ) {
      if (this.process(spec.process).scopes[spec.planScope].dataObjects.length > 0) {
        declareDataObjects(this, scope);
      }
      armEventSubProcesses(this, scope);
    }
    return scope;
  }

  /** Removes a finished scope and its event sub-process waits. */
  closeScope(scope: ScopeInstance): void {
    for (const w of this.state.waits.values()) if (w.scope === scope.id) this.resolve(w);
    this.state.scopes.delete(scope.id);
  }

  terminate(token: Token): void {
    if (!this.state.tokens.has(token.id)) return;
    if (token.child !== undefined) {
      const child = this.state.scopes.get(token.child);
      if (child) this.#terminateScope(child);
    }
    this.#resolveAllOf(token);
    behaviorOf(this.nodeOf(token), token).terminate?.(this, token);
    const proc = this.processOf(token);
    this.journal.node("onNodeLeft", "node.left", proc.nodes[token.node].id);
    this.removeToken(token, false);
  }

  #terminateScope(scope: ScopeInstance): void {
    if (!this.state.scopes.has(scope.id)) return;
    this.clear(scope);
    delete scope.writes;
    this.closeScope(scope);
  }

  clear(scope: ScopeInstance): void {
    for (const t of [...this.state.tokens.values()]) {
      if (t.scope === scope.id) this.terminate(t);
    }
    for (const s of [...this.state.scopes.values()]) {
      if (s.parent === scope.id && this.state.scopes.has(s.id)) {
        this.#terminateScope(s);
        if (s.kind === "eventSubProcess" || s.kind === "instance") scope.live--;
      }
    }
    for (const run of [...this.state.compensations.values()]) {
      if (run.scope === scope.id) dropRun(this, run);
    }
  }

  // ------------------------------------------------------------ scope endings

  #scopeDone(scope: ScopeInstance): void {
    if (scope.kind === "eventSubProcess") {
      const parent = this.scope(scope.parent!);
      this.#foldLog(scope, parent);
      this.closeScope(scope);
      parent.live--;
      if (parent.live === 0) this.#scopeDone(parent);
      return;
    }
    if (scope.handler !== undefined) {
      handlerBodyDone(this, scope);
      return;
    }
    if (scope.token === undefined) {
      if (scope.parent === undefined) this.#instanceDone("COMPLETED");
      return;
    }
    const owner = this.state.tokens.get(scope.token)!;
    const behavior = behaviorOf(this.nodeOf(owner), owner);
    this.current = owner;
    behavior.childDone!(this, owner, scope);
  }

  /** Moves a finished scope's compensation log into another scope. */
  #foldLog(from: ScopeInstance, to: ScopeInstance): void {
    if (from.compensation?.length) (to.compensation ??= []).push(...from.compensation);
  }

  /** Completes `scope` if nothing is left in it (a detached compensation run just ended). */
  settleScope(scope: ScopeInstance): void {
    if (scope.live === 0) this.#scopeDone(scope);
  }

  terminateScope(token: Token): void {
    const scope = this.scope(token.scope);
    this.leaveQuietly(token);
    this.clear(scope);
    if (scope.live === 0) this.#scopeDone(scope);
  }

  /** The token leaves its node and ends without its scope completing on that account. */
  leaveQuietly(token: Token): void {
    const node = this.nodeOf(token);
    this.#markCompleted(this.processOf(token), node);
    this.journal.node("onNodeLeft", "node.left", node.id);
    this.removeToken(token, false);
  }

  #innerDone(token: Token): void {
    const scope = this.scope(token.scope);
    this.removeToken(token, false);
    const body = scope.kind === "instance" ? this.scope(scope.parent!) : scope;
    const outer = this.state.tokens.get(body.token!)!;
    this.current = outer;
    behaviorOf(this.nodeOf(outer), outer).innerDone!(this, outer, scope);
  }

  // A finished instance keeps its process scope (its variables stay
  // inspectable); everything that could still run is gone.
  #instanceDone(status: InstanceStatus): void {
    if (this.state.status !== "RUNNING") return;
    this.state.status = status;
    for (const t of [...this.state.tokens.values()]) this.terminate(t);
    for (const w of [...this.state.waits.values()]) this.resolve(w);
    for (const s of [...this.state.scopes.values()]) {
      if (s.parent !== undefined) this.state.scopes.delete(s.id);
      else {
        s.live = 0;
        delete s.compensation;
        delete s.writes;
        delete s.gates;
      }
    }
    this.state.compensations.clear();
    if (this.state.aliases.length > 0) {
      (this.effects.aliasesRetired ??= []).push(...this.state.aliases);
      this.state.aliases = [];
    }
    if (status === "COMPLETED") this.journal.lifecycle("onInstanceCompleted", "instance.completed");
    else this.journal.lifecycle("onInstanceCompleted", "instance.terminated");
  }

  /**
   * At quiescence: a running instance parks (WAITING), unless it holds
   * tokens that nothing can ever move — no wait of any kind is left.
   */
  settleStatus(): void {
    if (this.state.status !== "RUNNING") return;
    if (this.state.waits.size === 0 && this.state.tokens.size > 0) {
      const stuck = this.state.tokens.values().next().value!;
      this.current = stuck;
      this.fail(
        stuck,
        ExecutorCode.STUCK,
        `token at '${
          this.nodeOf(stuck).id
        }' can never move: nothing is awaited that could release it`,
      );
    }
    this.state.status = "WAITING";
    this.journal.lifecycle("onInstanceSuspended", "instance.suspended");
  }

  /** Moves the step's data-store writes into the effects. */
  flushWrites(): void {
    if (this.stores.pending.length > 0) this.effects.storeWrites = this.stores.effects();
  }

  /** Ends the instance as TERMINATED (cancel input). */
  cancel(): void {
    this.#instanceDone("TERMINATED");
  }

  // ------------------------------------------------------------ run and settle

  /** Runs queued tokens until the instance is quiescent. */
  async run(): Promise<void> {
    let activations = 0;
    for (;;) {
      while (this.#head < this.#agenda.length) {
        if (this.state.status !== "RUNNING") return;
        const token = this.#agenda[this.#head++];
        if (this.state.tokens.get(token.id) !== token) continue;
        this.current = token;
        // A cycle with no wait state in it would otherwise hold the engine's lane (and memory) forever.
        if (++activations > MAX_ACTIVATIONS_PER_STEP) {
          this.fail(
            token,
            ExecutorCode.STEP_LIMIT,
            `the step entered ${MAX_ACTIVATIONS_PER_STEP} nodes without reaching a wait state ` +
              `(last '${
                this.nodeOf(token).id
              }'): a loop with no wait, timer or task that parks in it?`,
            { limit: MAX_ACTIVATIONS_PER_STEP },
          );
        }
        if (token.state === "triggered") {
          // Reached through an event-based gateway: its trigger already happened.
          token.state = "ready";
          this.journal.node("onNodeEntered", "node.entered", this.nodeOf(token).id);
          this.complete(token);
          continue;
        }
        if (token.state !== "ready") continue;
        const r = this.#activate(token);
        if (r !== undefined) await r;
      }
      this.#agenda.length = 0;
      this.#head = 0;
      if (this.state.status !== "RUNNING") return;
      const s = this.#settle();
      if (s !== undefined) await s;
      if (this.#agenda.length === 0) return;
    }
  }

  #activate(token: Token): void | Promise<void> {
    const node = this.nodeOf(token);
    this.journal.node("onNodeEntered", "node.entered", node.id);
    return behaviorOf(node, token).activate(this, token);
  }

  // Work that waits for the agenda to drain: joins that fire once no token
  // can still arrive, and conditional events whose condition became true.
  #settle(): void | Promise<void> {
    const groups = new Map<string, Token[]>();
    for (const t of this.state.tokens.values()) {
      if (t.state !== "joined") continue;
      const key = `${t.scope}:${t.node}`;
      const group = groups.get(key);
      if (group) group.push(t);
      else groups.set(key, [t]);
    }
    for (const group of groups.values()) {
      if (!this.state.tokens.has(group[0].id)) continue;
      this.current = group[0];
      behaviorOf(this.nodeOf(group[0]), group[0]).settle?.(this, group);
    }
    if (this.#agenda.length > 0) return;
    for (const w of [...this.state.waits.values()]) {
      if (w.kind !== "conditional" || !this.state.waits.has(w.id)) continue;
      const context = w.token !== undefined
        ? this.context(this.state.tokens.get(w.token)!)
        : new FeelContext(visible(this.state, this.scope(w.scope!)));
      const node = this.process(w.process).nodes[w.node];
      const now = this.testIn(node.trigger!.condition!, context);
      const edge = w.purpose === "catch" || w.purpose === "gateway" ? now : now && !w.last;
      w.last = now;
      if (edge) {
        const r = this.deliver(w, undefined);
        if (r !== undefined) return r.then(() => undefined);
      }
    }
  }

  /** Delivers a trigger to the wait's owner. */
  deliver(wait: Wait, message: InboundMessage | undefined): void | Promise<void> {
    if (wait.purpose === "eventSubProcess") {
      const scope = this.scope(wait.scope!);
      const node = this.process(wait.process).nodes[wait.node];
      return startEventSubProcess(this, scope, node, { wait, message });
    }
    const token = this.state.tokens.get(wait.token!)!;
    this.current = token;
    if (wait.purpose === "boundary") {
      return behaviorOf(this.process(wait.process).nodes[wait.node], undefined).trigger!(
        this,
        token,
        wait,
        message,
      );
    }
    if (wait.purpose !== "gateway") this.resolve(wait);
    if (wait.purpose === "continue") {
      this.depart(token);
      return;
    }
    if (wait.purpose === "reenter") {
      // An operator's revival of a failed instance: the node runs again from its start.
      token.state = "ready";
      this.#agenda.push(token);
      return;
    }
    return behaviorOf(this.nodeOf(token), token).trigger!(this, token, wait, message);
  }

  /** Registers a message as this step's inbound (for the start node's aliases). */
  inbound(node: PlanNode, process: string, message: InboundMessage): void {
    this.#inbound = { node: node.index, process, message };
  }

  throwError(token: Token, code: string, message: string): void {
    throwError(this, token, code, message);
  }

  escalate(token: Token, code: string | undefined): boolean {
    return escalate(this, token, code);
  }

  cancelTransaction(token: Token): void {
    cancelTransaction(this, token);
  }

  compensate(token: Token, activity: NodeIndex | undefined, end: boolean): void {
    compensate(this, token, activity, end);
  }

  // ------------------------------------------------------------ signals

  signal(name: string, payload: FeelValue): void {
    (this.effects.signals ??= []).push({ name, payload: toJs(payload) });
    this.broadcast(name);
  }

  /** Triggers every signal wait of this instance listening to `name`. */
  broadcast(name: string): void {
    const matching = [...this.state.waits.values()].filter((w) =>
      w.kind === "signal" && w.signal === name
    );
    for (const w of matching) {
      if (!this.state.waits.has(w.id)) continue;
      if (w.token !== undefined && !this.state.tokens.has(w.token)) continue;
      // Signal catches (events, boundaries, gateway branches, event
      // sub-process starts) complete without calling a port.
      if (this.deliver(w, undefined) instanceof Promise) {
        throw new Error("invariant: a signal catch completed asynchronously");
      }
    }
  }

  // ------------------------------------------------------------ task attempts

  failAttempt(token: Token, code: string, message: string): void {
    const node = this.nodeOf(token);
    const retry = node.retry;
    if (!retry) {
      this.fail(token, ExecutorCode.TASK_FAILED, `task '${node.id}' failed: ${message}`, {
        cause: code,
      });
    }
    const attempts = this.state.attempts.get(node.id) ?? 1;
    if (attempts >= retry.maxAttempts || retry.nonRetryableCodes.includes(code)) {
      this.fail(
        token,
        ExecutorCode.RETRY_EXHAUSTED,
        `task '${node.id}' failed after ${attempts} attempt(s): ${message}`,
        { cause: code, attempts },
      );
    }
    const delay = retry.initialDelayMillis * retry.backoffCoefficient ** (attempts - 1);
    const due = this.now + Math.min(delay, retry.maxDelayMillis ?? Infinity);
    this.park(token, "backoff");
    this.arm(token, { kind: "timer", purpose: "retry", node: node.index, due: Math.round(due) });
    this.journal.audit("task.retryScheduled", node.id, undefined, code);
  }

  /** Counts an attempt of a task with a retry policy; returns its number (1 for the first). */
  attempt(token: Token): number {
    const node = this.nodeOf(token);
    if (!node.retry) return 1;
    const n = (this.state.attempts.get(node.id) ?? 0) + 1;
    this.state.attempts.set(node.id, n);
    return n;
  }

  fail(
    token: Token | undefined,
    code: string,
    message: string,
    attributes?: Record<string, string | number | boolean>,
  ): never {
    throw new StepFailure(code, message, token ? this.nodeOf(token).id : undefined, attributes);
  }

  /** Marks the instance FAILED (the failure was raised while `current` was being worked on). */
  failed(failure: StepFailure): void {
    const node = failure.node ??
      (this.current && this.state.scopes.has(this.current.scope)
        ? this.nodeOf(this.current).id
        : undefined);
    this.state.status = "FAILED";
    this.state.failure = { code: failure.code, message: failure.message };
    if (node !== undefined) this.state.failure.node = node;
    if (failure.attributes) this.state.failure.attributes = { ...failure.attributes };
    for (const w of [...this.state.waits.values()]) this.resolve(w);
    this.journal.lifecycle("onInstanceFailed", "instance.failed", node, failure.code);
  }

  // ------------------------------------------------------------ messages out

  headers(token: Token, headers: readonly PlanHeader[]): Record<string, string> {
    const out: Record<string, string> = {};
    if (headers.length === 0) return out;
    const ctx = this.context(token);
    for (const h of headers) {
      const value = this.evaluateIn(h.value, ctx);
      // A header whose value is null is left off, not sent as the text "null".
      if (value !== null) out[h.name] = text(value);
    }
    return out;
  }

  idempotencyKey(token: Token): string {
    return requestKey(this.state.instanceId, this.nodeOf(token).id, token);
  }

  body(token: Token): FeelValue | Promise<FeelValue> {
    const inputs = this.inputs(token);
    return inputs instanceof Promise ? inputs.then(bodyOf) : bodyOf(inputs);
  }

  plain(value: FeelValue): unknown {
    return toJs(value);
  }

  #reply(
    token: Token,
    node: PlanNode,
    result: FeelValue | undefined,
    rendered: { readonly body: string; readonly contentType?: string } | undefined,
  ): void {
    const reply = node.reply!;
    const contentType = reply.contentType ?? rendered?.contentType;
    const effect: Mutable<ReplyEffect> = {
      node: node.id,
      mode: reply.mode,
      headers: this.headers(token, reply.headers),
      body: rendered ? rendered.body : result === undefined ? null : toJs(result),
      continue: reply.continue,
    };
    if (contentType !== undefined) effect.contentType = contentType;
    (this.effects.replies ??= []).push(effect);
  }

  #recordAliases(token: Token, node: PlanNode): void {
    const aliases = node.subscription?.role === "start"
      ? [...node.subscription.aliases, ...node.aliases]
      : node.aliases;
    if (aliases.length === 0) return;
    const process = this.scope(token.scope).process;
    const inbound = this.#inbound;
    const overlay = inbound && inbound.node === node.index && inbound.process === process
      ? new Map([["header", toFeel(inbound.message.headers ?? {})]])
      : undefined;
    const ctx = this.context(token, overlay);
    for (const a of aliases) {
      const value = this.evaluateIn(a.expression, ctx);
      // A key the message does not carry is no key: recorded as the text "null", every instance
      // without one would hold the same value (and a unique alias would refuse all but the first).
      if (value === null) continue;
      const recorded = {
        name: a.name,
        value: text(value),
        unique: a.unique,
        onConflict: a.onConflict,
      };
      if (this.state.aliases.some((r) => r.name === recorded.name && r.value === recorded.value)) {
        continue;
      }
      this.state.aliases.push(recorded);
      (this.effects.aliasesRecorded ??= []).push(recorded);
    }
  }

  // ------------------------------------------------------------ journal

  #markCompleted(proc: ProcessPlan, node: PlanNode): void {
    this.state.completed.add(proc.id === this.state.process ? node.id : `${proc.id}#${node.id}`);
  }

  /** A variable as seen from the token. */
  lookup(token: Token, name: string): FeelValue | undefined {
    return lookup(this.state, this.scope(token.scope), name);
  }
}

/** Text of a value for headers and aliases: strings as they are, others in FEEL notation. */
function text(v: FeelValue): string {
  return typeof v === "string" ? v : formatFeel(v);
}

// A throwing node's body: its data inputs as a context, a single input as
// itself, nothing as null.
function bodyOf(inputs: Map<string, FeelValue>): FeelValue {
  if (inputs.size === 0) return null;
  if (inputs.size === 1) return inputs.values().next().value!;
  return new FeelContext(inputs);
}
