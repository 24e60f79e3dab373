/**
 * The substance of a migration: deciding whether an instance's state has a
 * place in the target process, and rewriting it there.
 *
 * Every live locus is derived from the decoded state — each token, each
 * wait (message, timer, signal, conditional), the scopes (sub-process,
 * multi-instance and loop bodies), the compensation entries and runs,
 * complex-gateway rounds and the aliases the instance holds — and mapped
 * through the node mapping (identity where it is silent, never across a
 * process boundary). The target node must exist and must be able to resume
 * the locus the way it is parked: a response wait needs a call on the same
 * channel, a relay wait a node consuming that channel, a retry park a task
 * whose attempt can run again, a deadline a `q:timeout`, a timer catch a
 * timer event, a body a node owning the same kind of body. Every violation
 * is collected; a mapping entry naming nothing the instance holds or
 * completed is one too, since a typo must not read as "identity".
 *
 * The rewrite maps node, flow and scope indexes from the source plan to
 * the target's. Variables, the status, the failure, coverage progress and
 * counters are carried over untouched; attempt counters follow their task
 * under its new id (a spent budget stays spent).
 *
 * @module
 */
import type { ProcessPlan } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import {
  cloneState,
  type CompensationEntry,
  type InstanceState,
  type Wait,
} from "../../executor/mod.ts";

/** What a migration maps from and to. */
export interface RemapInput {
  readonly state: InstanceState;
  /** The instance's process in the source deployment. */
  readonly source: ProcessPlan;
  /** The process it lands in. */
  readonly target: ProcessPlan;
  /** Processes of the source and target deployments by id (called processes live there). */
  readonly sourceProcesses: ReadonlyMap<string, ProcessPlan>;
  readonly targetProcesses: ReadonlyMap<string, ProcessPlan>;
  /** Source node id to target node id. */
  readonly nodeMapping: Readonly<Record<string, string>>;
}

/** The verdict: every violation and warning, and the rewritten state when there is no violation. */
export interface Remapped {
  readonly violations: Diagnostic[];
  readonly warnings: Diagnostic[];
  readonly state?: InstanceState;
}

/** Validates and rewrites `input.state` for the target process. */
export function remapState(input: RemapInput): Remapped {
  return new Remapper(input).run();
}

type Locus =
  | "token"
  | "wait"
  | "timer"
  | "scope"
  | "multi-instance body"
  | "compensation entry"
  | "gateway"
  | "alias";

class Remapper {
  readonly violations: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  readonly #in: RemapInput;
  readonly #cross: boolean;
  /** Source node ids the instance parks at or holds a locus on. */
  readonly #held = new Set<string>();
  readonly #reported = new Set<string>();

  constructor(input: RemapInput) {
    this.#in = input;
    this.#cross = input.source.id !== input.target.id;
  }

  /** The target process for a scope's process. */
  #processFor(processId: string): ProcessPlan | undefined {
    return processId === this.#in.source.id
      ? this.#in.target
      : this.#in.targetProcesses.get(processId);
  }

  #sourceProcess(processId: string): ProcessPlan {
    return processId === this.#in.source.id
      ? this.#in.source
      : this.#in.sourceProcesses.get(processId)!;
  }

  #violate(code: string, locus: Locus, node: string, message: string, target?: string): void {
    const key = `${code}|${locus}|${node}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.violations.push(diagnostic(code, message, {
      attributes: { locus, node, ...(target === undefined ? {} : { targetNode: target }) },
    }));
  }

  /**
   * The target node index for source node `index` of `processId`, or
   * undefined after reporting why there is none.
   */
  #node(processId: string, index: number, locus: Locus): number | undefined {
    const source = this.#sourceProcess(processId);
    const id = source.nodes[index].id;
    this.#held.add(id);
    const target = this.#processFor(processId);
    const mapped = this.#in.nodeMapping[id];
    if (target === undefined) {
      this.#violate(
        "SUTRA.ADMIN.MIGRATE.PROCESS_ABSENT",
        locus,
        id,
        `the target deployment has no process '${processId}', which the instance runs '${id}' in`,
      );
      return undefined;
    }
    if (mapped === undefined && this.#cross && processId === this.#in.source.id) {
      this.#violate(
        "SUTRA.ADMIN.MIGRATE.CROSS_PROCESS_UNMAPPED",
        locus,
        id,
        `the ${locus} at '${id}' moves into process '${target.id}' and needs an explicit nodeMapping entry`,
      );
      return undefined;
    }
    const targetId = mapped ?? id;
    const found = target.nodeIndex.get(targetId);
    if (found === undefined) {
      this.#violate(
        "SUTRA.ADMIN.MIGRATE.NODE_UNMAPPED",
        locus,
        id,
        `the ${locus} at '${id}' has no place in process '${target.id}': it declares no node '${targetId}'`,
        targetId,
      );
    }
    return found;
  }

  #incompatible(locus: Locus, source: string, target: string, why: string): void {
    this.#violate(
      "SUTRA.ADMIN.MIGRATE.NODE_INCOMPATIBLE",
      locus,
      source,
      `the ${locus} at '${source}' cannot resume at '${target}': ${why}`,
      target,
    );
  }

  run(): Remapped {
    const s = cloneState(this.#in.state);
    const { target } = this.#in;
    // Scopes first: tokens and waits name the scope they live in.
    for (const scope of s.scopes.values()) {
      const processId = scope.process;
      const process = this.#processFor(processId);
      const planScope = this.#sourceProcess(processId).scopes[scope.planScope];
      if (process === undefined) {
        this.#violate(
          "SUTRA.ADMIN.MIGRATE.PROCESS_ABSENT",
          "scope",
          planScope.id,
          `the target deployment has no process '${processId}'`,
        );
        continue;
      }
      if (planScope.node === undefined) {
        scope.planScope = 0;
      } else {
        const locus: Locus = scope.kind === "multiInstance" || scope.kind === "instance"
          ? "multi-instance body"
          : "scope";
        const owner = this.#node(processId, planScope.node, locus);
        const mapped = owner === undefined
          ? undefined
          : process.scopes.find((p) => p.node === owner);
        if (owner !== undefined && mapped === undefined) {
          this.#incompatible(
            locus,
            planScope.id,
            process.nodes[owner].id,
            "the target node owns no body of its own",
          );
        }
        if (mapped !== undefined) scope.planScope = mapped.index;
      }
      scope.compensation = scope.compensation?.map((e) => this.#entry(e));
      scope.gates = scope.gates?.map((g) => ({
        node: this.#node(processId, g.node, "gateway") ?? g.node,
        consumed: g.consumed.map((f) => this.#flow(processId, f)),
      }));
      if (processId === this.#in.source.id) scope.process = target.id;
    }
    for (const token of s.tokens.values()) {
      const processId = this.#in.state.scopes.get(token.scope)?.process ?? this.#in.state.process;
      const source = this.#sourceProcess(processId);
      const node = source.nodes[token.node];
      const mapped = this.#node(processId, token.node, "token");
      if (mapped === undefined) continue;
      const to = this.#processFor(processId)!.nodes[mapped];
      this.#checkShape(node, to, token.child !== undefined, token.state === "joined");
      token.node = mapped;
      if (token.arrival !== undefined) {
        const flow = this.#flowOrUndefined(processId, token.arrival);
        if (flow === undefined && token.state === "joined") {
          this.#incompatible(
            "gateway",
            node.id,
            to.id,
            `the join waits on flow '${
              source.flows[token.arrival].id
            }', which the target does not declare`,
          );
        }
        if (flow === undefined) delete token.arrival;
        else token.arrival = flow;
      }
    }
    for (const wait of s.waits.values()) this.#wait(wait);
    for (const run of s.compensations.values()) {
      run.queue = run.queue.map((e) => this.#entry(e));
      if (run.then.kind === "boundary") {
        const processId = this.#in.state.scopes.get(run.scope)?.process ?? this.#in.state.process;
        const mapped = this.#node(processId, run.then.boundary, "compensation entry");
        if (mapped !== undefined) run.then.boundary = mapped;
      }
    }
    this.#aliases(s);
    this.#completed(s);
    this.#mappingEntries();
    if (this.violations.length > 0) return { violations: this.violations, warnings: this.warnings };
    s.process = s.process === this.#in.source.id ? target.id : s.process;
    s.attempts = new Map(
      [...s.attempts].map(([id, n]) => [this.#in.nodeMapping[id] ?? id, n]),
    );
    if (s.startNode !== undefined) s.startNode = this.#in.nodeMapping[s.startNode] ?? s.startNode;
    return { violations: [], warnings: this.warnings, state: s };
  }

  /** A token parked at a node: the target must hold it the same way. */
  #checkShape(
    from: ProcessPlan["nodes"][number],
    to: ProcessPlan["nodes"][number],
    ownsChild: boolean,
    joined: boolean,
  ): void {
    const body = (n: typeof from) =>
      n.loop?.type === "multiInstance"
        ? "a multi-instance body"
        : n.loop?.type === "standard"
        ? "a loop body"
        : n.calledElement !== undefined
        ? "a called process"
        : n.childScope !== undefined
        ? "a sub-process body"
        : "no body";
    if (ownsChild && body(from) !== body(to)) {
      const locus: Locus = from.loop?.type === "multiInstance" ? "multi-instance body" : "scope";
      this.#incompatible(locus, from.id, to.id, `it runs ${body(from)}, the target ${body(to)}`);
    }
    if (joined && to.join === undefined) {
      this.#incompatible(
        "gateway",
        from.id,
        to.id,
        "a token waits to join there, and the target joins nothing",
      );
    }
  }

  #wait(wait: Wait): void {
    const processId = wait.process;
    const source = this.#sourceProcess(processId);
    const from = source.nodes[wait.node];
    const locus: Locus = wait.kind === "timer" ? "timer" : "wait";
    const mapped = this.#node(processId, wait.node, locus);
    if (mapped === undefined) return;
    const process = this.#processFor(processId)!;
    const to = process.nodes[mapped];
    const why = this.#cannotResume(wait, to);
    if (why) this.#incompatible(locus, from.id, to.id, why);
    if (wait.purpose === "boundary" && wait.token !== undefined) {
      const owner = this.#in.state.tokens.get(wait.token);
      const ownerTarget = owner && this.#nodeQuiet(processId, owner.node);
      if (to.attachedTo === undefined || to.attachedTo !== ownerTarget) {
        this.#incompatible(
          locus,
          from.id,
          to.id,
          "the boundary is not attached to the node its activity moves to",
        );
      }
    }
    wait.node = mapped;
    if (wait.process === this.#in.source.id) wait.process = this.#in.target.id;
  }

  #nodeQuiet(processId: string, index: number): number | undefined {
    const id = this.#sourceProcess(processId).nodes[index].id;
    return this.#processFor(processId)?.nodeIndex.get(this.#in.nodeMapping[id] ?? id);
  }

  /** Why `to` cannot resume `wait` the way the executor would, or undefined when it can. */
  #cannotResume(wait: Wait, to: ProcessPlan["nodes"][number]): string | undefined {
    const impl = to.implementation;
    switch (wait.purpose) {
      case "response":
        return impl?.kind === "channel-call" && impl.channel === wait.channel
          ? undefined
          : `it waits for the response of a call on channel '${wait.channel}', and the target makes no such call`;
      case "retry":
        return impl?.kind === "registered" || impl?.kind === "channel-call"
          ? undefined
          : "it waits to run a task attempt again, and the target is not a task with an attempt to run";
      case "reenter":
        return to.join === undefined
          ? undefined
          : "it waits to enter its node again, and the target is a converging gateway";
      case "timeout":
        return to.timeout !== undefined
          ? undefined
          : "it holds a q:timeout deadline, and the target declares no q:timeout";
      case "continue":
        return to.reply?.continue
          ? undefined
          : "it continues after a respond-and-continue reply, and the target replies no such way";
      default:
        break;
    }
    switch (wait.kind) {
      case "message": {
        const consumes = to.subscription?.channel === wait.channel ||
          (to.trigger?.type === "message" && to.subscription === undefined);
        return consumes
          ? undefined
          : `it waits for a message on channel '${wait.channel}', and the target consumes no such message`;
      }
      case "timer":
        return to.trigger?.type === "timer"
          ? undefined
          : "it is a timer, and the target is no timer event";
      case "signal":
        return to.trigger?.type === "signal" && to.trigger.signal === wait.signal
          ? undefined
          : `it waits for signal '${wait.signal}', and the target catches no such signal`;
      case "conditional":
        return to.trigger?.type === "conditional"
          ? undefined
          : "it waits for a condition, and the target is no conditional event";
    }
  }

  #entry(e: CompensationEntry): CompensationEntry {
    const mapped = this.#node(e.process, e.node, "compensation entry");
    const process = this.#processFor(e.process);
    const out: CompensationEntry = { ...e };
    if (mapped !== undefined && process !== undefined) {
      const to = process.nodes[mapped];
      const from = this.#sourceProcess(e.process).nodes[e.node];
      if (to.compensationHandler === undefined && to.childScope === undefined) {
        this.#incompatible(
          "compensation entry",
          from.id,
          to.id,
          "it is owed compensation, and the target has no compensation handler for it",
        );
      }
      out.node = mapped;
    }
    if (e.process === this.#in.source.id) out.process = this.#in.target.id;
    if (e.children) out.children = e.children.map((c) => this.#entry(c));
    return out;
  }

  #flowOrUndefined(processId: string, flow: number): number | undefined {
    const id = this.#sourceProcess(processId).flows[flow].id;
    return this.#processFor(processId)?.flowIndex.get(id);
  }

  #flow(processId: string, flow: number): number {
    const mapped = this.#flowOrUndefined(processId, flow);
    if (mapped !== undefined) return mapped;
    const id = this.#sourceProcess(processId).flows[flow].id;
    this.#violate(
      "SUTRA.ADMIN.MIGRATE.NODE_INCOMPATIBLE",
      "gateway",
      id,
      `a gateway round counts flow '${id}', which the target does not declare`,
    );
    return flow;
  }

  /** Every alias the instance holds must be one the target records or correlates on. */
  #aliases(s: InstanceState): void {
    const declared = new Set<string>();
    for (const process of [this.#in.target, ...this.#in.targetProcesses.values()]) {
      for (const node of process.nodes) {
        for (const a of [...node.aliases, ...node.subscription?.aliases ?? []]) {
          declared.add(a.name);
        }
      }
    }
    for (const alias of new Set(s.aliases.map((a) => a.name))) {
      if (!declared.has(alias)) {
        this.#violate(
          "SUTRA.ADMIN.MIGRATE.ALIAS_UNDECLARED",
          "alias",
          alias,
          `the instance holds alias '${alias}', which process '${this.#in.target.id}' never records or correlates on`,
        );
      }
    }
  }

  /** Completed nodes map like loci; one the target lacks is a warning, not a refusal. */
  #completed(s: InstanceState): void {
    const completed = new Set<string>();
    for (const key of s.completed) {
      const hash = key.indexOf("#");
      const processId = hash < 0 ? this.#in.source.id : key.slice(0, hash);
      const id = hash < 0 ? key : key.slice(hash + 1);
      const mappedId = this.#in.nodeMapping[id] ?? id;
      const process = this.#processFor(processId);
      if (!process?.nodeIndex.has(mappedId)) {
        this.warnings.push(diagnostic(
          "SUTRA.ADMIN.MIGRATE.COMPLETED_DROPPED",
          `'${id}' was completed, and the target has no node '${mappedId}': if the target reaches it, it runs again`,
          { severity: "WARNING", attributes: { node: id } },
        ));
      }
      const rootId = processId === this.#in.source.id ? this.#in.target.id : processId;
      completed.add(rootId === this.#in.target.id ? mappedId : `${processId}#${mappedId}`);
    }
    s.completed = completed;
  }

  /** Every mapping entry must name a node the instance holds or completed, and a node of the target. */
  #mappingEntries(): void {
    const completed = new Set(
      [...this.#in.state.completed].map((k) => k.slice(k.indexOf("#") + 1)),
    );
    for (const [from, to] of Object.entries(this.#in.nodeMapping)) {
      if (!this.#held.has(from) && !completed.has(from)) {
        this.violations.push(diagnostic(
          "SUTRA.ADMIN.MIGRATE.MAPPING_INVALID",
          `nodeMapping names '${from}', which the instance neither waits at nor has completed`,
          { attributes: { node: from } },
        ));
      } else if (
        ![this.#in.target, ...this.#in.targetProcesses.values()].some((p) => p.nodeIndex.has(to))
      ) {
        this.violations.push(diagnostic(
          "SUTRA.ADMIN.MIGRATE.MAPPING_INVALID",
          `nodeMapping maps '${from}' to '${to}', which the target does not declare`,
          { attributes: { node: from, targetNode: to } },
        ));
      }
    }
  }
}
