/**
 * Builds the {@link ExecutionPlan} from a model that validated without
 * errors: numbers nodes, flows and scopes, resolves every reference to an
 * index, precomputes join bookkeeping, link pairs, event sub-process
 * triggers and channel subscriptions, and attaches the compiled FEEL.
 * Only executable processes are planned.
 *
 * @module
 */
import type { CompiledExpression } from "../../lang/feel/mod.ts";
import { deepFreeze, FrozenMap, FrozenSet } from "./_freeze.ts";
import { NodeSet } from "./node_set.ts";
import {
  consumesMessages,
  correlatesResponses,
  implementationOf,
  parksInstance,
} from "./implementation.ts";
import type {
  ActivityNode,
  DataAssociation,
  DataObjectReference,
  EventNode,
  Expression,
  FlowContainer,
  FlowNode,
  Process,
} from "./model.ts";
import { isActivity, isEvent, isGateway, isSubProcess, linkName } from "./model.ts";
import type { ModelIndex } from "./model_index.ts";
import type {
  EventSubProcessTrigger,
  ExecutionPlan,
  NodeIndex,
  PlanAdHoc,
  PlanAlias,
  PlanDataAssociation,
  PlanDataObject,
  PlanDefinition,
  PlanExpression,
  PlanFlow,
  PlanHeader,
  PlanJoin,
  PlanLoop,
  PlanNode,
  PlanScope,
  PlanTrigger,
  ProcessPlan,
  Schedule,
  ScopeIndex,
  Subscription,
} from "./plan.ts";
import type { QAlias, QHeader, QSource } from "./q_model.ts";
import { parseTimer, timerFeelExpression } from "./timer.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Options for {@link buildPlan}. */
export interface BuildPlanOptions {
  /** Compiled FEEL for every expression of the model (from validation). */
  readonly compiled: ReadonlyMap<Expression, CompiledExpression>;
}

/**
 * Builds the plan. The model must have validated without errors: a
 * dangling reference here is an invariant violation and throws.
 */
export function buildPlan(index: ModelIndex, options: BuildPlanOptions): ExecutionPlan {
  const defs = index.definitions;
  const processes = defs.processes.filter((p) => index.isExecutable(p)).map((p) =>
    new ProcessPlanner(index, p, options.compiled).build()
  );
  const subscriptions = processes.flatMap((p) =>
    p.nodes.flatMap((n) => (n.subscription ? [n.subscription] : []))
  );
  const byChannel = new Map<string, Subscription[]>();
  for (const s of subscriptions) byChannel.set(s.channel, [...(byChannel.get(s.channel) ?? []), s]);
  const schedules: Schedule[] = [];
  for (const p of processes) {
    for (const node of p.scopes[0].entries.map((i) => p.nodes[i])) {
      const trigger = node.trigger;
      if (node.kind !== "startEvent" || trigger?.type !== "timer") continue;
      if (trigger.timer) {
        schedules.push({ process: p.id, node: node.index, nodeId: node.id, timer: trigger.timer });
      } else if (trigger.timerExpression) {
        schedules.push({
          process: p.id,
          node: node.index,
          nodeId: node.id,
          timerExpression: trigger.timerExpression,
        });
      }
    }
  }
  return deepFreeze<ExecutionPlan>({
    uri: defs.uri,
    definitionsId: defs.id,
    processes,
    processById: new FrozenMap(processes.map((p) => [p.id, p])),
    subscriptions,
    subscriptionsByChannel: new FrozenMap(byChannel),
    schedules,
    messages: definitionsMap(defs.messages),
    signals: definitionsMap(defs.signals),
    errors: definitionsMap(defs.errors.map((e) => ({ ...e, code: e.errorCode }))),
    escalations: definitionsMap(defs.escalations.map((e) => ({ ...e, code: e.escalationCode }))),
  });
}

function definitionsMap(
  list: readonly { id: string; name?: string; code?: string }[],
): FrozenMap<string, PlanDefinition> {
  return new FrozenMap(list.map((d) => {
    const def: Mutable<PlanDefinition> = { id: d.id };
    if (d.name !== undefined) def.name = d.name;
    if (d.code !== undefined) def.code = d.code;
    return [d.id, def];
  }));
}

/** Plans one process. */
class ProcessPlanner {
  readonly #index: ModelIndex;
  readonly #process: Process;
  readonly #compiled: ReadonlyMap<Expression, CompiledExpression>;
  readonly #nodeIndex = new Map<string, NodeIndex>();
  readonly #flowIndex = new Map<string, number>();
  readonly #nodes: FlowNode[] = [];
  readonly #nodeScope: ScopeIndex[] = [];
  readonly #scopes: Mutable<PlanScope>[] = [];
  readonly #scopeOfContainer = new Map<string, ScopeIndex>();
  #predecessorCache?: readonly (readonly NodeIndex[])[];

  constructor(
    index: ModelIndex,
    process: Process,
    compiled: ReadonlyMap<Expression, CompiledExpression>,
  ) {
    this.#index = index;
    this.#process = process;
    this.#compiled = compiled;
  }

  build(): ProcessPlan {
    const process = this.#process;
    this.#number(process.content, process.id, "process", undefined, undefined);
    const flows = this.#flows();
    const nodes = this.#nodes.map((n, i) => this.#node(n, i, flows));
    for (const scope of this.#scopes) this.#finishScope(scope, nodes);
    const variables = process.q.variables;
    const coverage = process.q.coverage.map((c) => ({
      path: c.path,
      flows: c.flows.map((f) => this.#flowIndex.get(f)!),
    }));
    const plan: Mutable<ProcessPlan> = {
      id: process.id,
      idempotent: process.q.processes[0]?.idempotent ?? false,
      nodes,
      flows,
      scopes: this.#scopes,
      nodeIndex: new FrozenMap(this.#nodeIndex),
      flowIndex: new FrozenMap(this.#flowIndex),
      variables,
      transient: new FrozenSet(variables.filter((v) => v.transient).map((v) => v.name)),
      sensitive: new FrozenSet(variables.filter((v) => v.sensitive).map((v) => v.name)),
      coverage,
      stateful: nodes.some((n) => n.waitState),
    };
    if (process.name !== undefined) plan.name = process.name;
    if (process.q.audits[0]) plan.audit = process.q.audits[0];
    return plan;
  }

  // Depth-first numbering so a scope's nodes are contiguous with its subtree.
  #number(
    content: FlowContainer,
    id: string,
    kind: PlanScope["kind"],
    parent: ScopeIndex | undefined,
    owner: NodeIndex | undefined,
  ): ScopeIndex {
    const scope: Mutable<PlanScope> = {
      index: this.#scopes.length,
      id,
      kind,
      nodes: [],
      entries: [],
      dataObjects: this.#dataObjects(content, owner),
      eventSubProcesses: [],
      links: new FrozenMap(),
    };
    if (parent !== undefined) scope.parent = parent;
    if (owner !== undefined) scope.node = owner;
    this.#scopes.push(scope);
    this.#scopeOfContainer.set(id, scope.index);
    const nodes: NodeIndex[] = [];
    for (const node of content.nodes) {
      const i = this.#nodes.length;
      this.#nodes.push(node);
      this.#nodeScope.push(scope.index);
      this.#nodeIndex.set(node.id, i);
      nodes.push(i);
    }
    scope.nodes = nodes;
    for (const node of content.nodes) {
      if (!isSubProcess(node)) continue;
      const childKind = node.triggeredByEvent ? "eventSubProcess" : node.kind;
      this.#number(node.content, node.id, childKind, scope.index, this.#nodeIndex.get(node.id)!);
    }
    return scope.index;
  }

  #flows(): PlanFlow[] {
    const flows: PlanFlow[] = [];
    for (const container of this.#index.containers) {
      if (container.process !== this.#process) continue;
      for (const f of container.content.flows) {
        const source = this.#nodeIndex.get(f.sourceRef)!;
        const flow: Mutable<PlanFlow> = {
          index: flows.length,
          id: f.id,
          source,
          target: this.#nodeIndex.get(f.targetRef)!,
          isDefault: this.#defaultOf(this.#nodes[source]) === f.id,
        };
        if (f.name !== undefined) flow.name = f.name;
        const condition = this.#expression(f.condition);
        if (condition) flow.condition = condition;
        this.#flowIndex.set(f.id, flow.index);
        flows.push(flow);
      }
    }
    return flows;
  }

  #defaultOf(node: FlowNode): string | undefined {
    const ref = "defaultFlow" in node ? node.defaultFlow : undefined;
    return ref === undefined ? undefined : this.#index.resolve(ref) ?? ref;
  }

  #expression(expression: Expression | undefined): PlanExpression | undefined {
    if (!expression) return undefined;
    const compiled = this.#compiled.get(expression);
    if (!compiled) return undefined;
    return {
      text: expression.text,
      compiled,
      paths: compiled.paths,
      line: expression.line,
      column: expression.column,
    };
  }

  #node(node: FlowNode, index: NodeIndex, flows: readonly PlanFlow[]): PlanNode {
    const plan: Mutable<PlanNode> = {
      index,
      id: node.id,
      kind: node.kind,
      scope: this.#nodeScope[index],
      line: node.line,
      incoming: node.incoming.map((f) => this.#flowIndex.get(f)!),
      outgoing: node.outgoing.map((f) => this.#flowIndex.get(f)!),
      boundaries: "boundaries" in node ? node.boundaries.map((b) => this.#nodeIndex.get(b)!) : [],
      interrupting: true,
      aliases: node.q.aliases.map((a) => this.#alias(a)).filter((a): a is PlanAlias => !!a),
      inputs: node.dataInputAssociations.map((a) => this.#association(a)),
      outputs: node.dataOutputAssociations.map((a) => this.#association(a)),
      waitState: parksInstance(node),
      isForCompensation: isActivity(node) && node.isForCompensation,
    };
    if (node.name !== undefined) plan.name = node.name;
    const dataOutputs = this.#dataOutputs(node);
    if (dataOutputs.length > 0) plan.dataOutputs = dataOutputs;
    const defaultFlow = this.#defaultOf(node);
    if (defaultFlow !== undefined) plan.defaultFlow = this.#flowIndex.get(defaultFlow)!;
    if (isEvent(node)) this.#event(node, plan);
    if (isGateway(node)) {
      const join = this.#join(node, plan, flows);
      if (join) plan.join = join;
      const activation = this.#expression(node.activationCondition);
      if (activation) plan.activationCondition = activation;
    }
    if (isSubProcess(node)) plan.childScope = this.#scopeOfContainer.get(node.id)!;
    if (isActivity(node)) this.#activity(node, plan);
    if ((consumesMessages(node) || correlatesResponses(node)) && node.q.sources[0]) {
      plan.subscription = this.#subscription(node, index, node.q.sources[0]);
    }
    const reply = node.q.replies[0];
    if (reply) {
      plan.reply = {
        mode: reply.mode,
        continue: reply.continue,
        headers: this.#headers(reply.headers),
        ...(reply.contentType === undefined ? {} : { contentType: reply.contentType }),
      };
    }
    const send = node.q.sends[0];
    if (send) {
      plan.send = {
        headers: this.#headers(send.headers),
        ...(send.channel === undefined ? {} : { channel: send.channel }),
        ...(send.destination === undefined ? {} : { destination: send.destination }),
      };
    }
    return plan;
  }

  #event(node: EventNode, plan: Mutable<PlanNode>): void {
    if (node.attachedToRef) plan.attachedTo = this.#nodeIndex.get(node.attachedToRef)!;
    plan.interrupting = node.kind === "boundaryEvent" ? node.cancelActivity : node.isInterrupting;
    const d = node.definitions[0];
    const trigger: Mutable<PlanTrigger> = { type: d?.type ?? "none" };
    switch (d?.type) {
      case "timer": {
        if (!d.form || !d.expression) break;
        const feel = timerFeelExpression(d.expression);
        if (feel) {
          const expression = this.#expression(feel);
          if (expression) trigger.timerExpression = { form: d.form, expression };
          break;
        }
        const parsed = parseTimer(d.form, d.expression.text);
        if (parsed.ok) trigger.timer = parsed.spec;
        break;
      }
      case "conditional": {
        const condition = this.#expression(d.condition);
        if (condition) trigger.condition = condition;
        break;
      }
      case "message":
        if (d.messageRef) trigger.message = this.#nameOf(d.messageRef);
        break;
      case "signal":
        if (d.signalRef) trigger.signal = this.#nameOf(d.signalRef);
        break;
      case "error": {
        const error = this.#index.definitions.errors.find((e) =>
          e.id === this.#resolve(d.errorRef)
        );
        // An error declared without a code is known by its id (as Camunda does): a boundary naming
        // it catches that error only, not every error as a boundary naming none does.
        if (error) trigger.errorCode = error.errorCode ?? error.id;
        break;
      }
      case "escalation": {
        const esc = this.#index.definitions.escalations.find((e) =>
          e.id === this.#resolve(d.escalationRef)
        );
        if (esc?.escalationCode !== undefined) trigger.escalationCode = esc.escalationCode;
        break;
      }
      case "compensate":
        trigger.waitForCompletion = d.waitForCompletion;
        if (d.activityRef) trigger.compensate = this.#nodeIndex.get(this.#resolve(d.activityRef)!)!;
        break;
    }
    plan.trigger = trigger;
  }

  #resolve(ref: string | undefined): string | undefined {
    return ref === undefined ? undefined : this.#index.resolve(ref);
  }

  // Messages and signals match by name across processes; ids are local.
  #nameOf(ref: string): string {
    const id = this.#resolve(ref) ?? ref;
    const defs = this.#index.definitions;
    const named = [...defs.messages, ...defs.signals].find((m) => m.id === id);
    return named?.name ?? id;
  }

  #join(node: FlowNode, plan: PlanNode, flows: readonly PlanFlow[]): PlanJoin | undefined {
    if (plan.incoming.length < 2) return undefined;
    if (node.kind === "parallelGateway") return { kind: "parallel", incoming: plan.incoming };
    const kind = node.kind === "complexGateway"
      ? "complex"
      : node.kind === "inclusiveGateway"
      ? "inclusive"
      : undefined;
    if (kind === undefined) return undefined;
    return {
      kind,
      incoming: plan.incoming,
      upstream: plan.incoming.map((f) => this.#upstream(flows[f].source, plan.index, flows)),
    };
  }

  /** Nodes of the same scope from which `from` is reachable without passing `join`. */
  #upstream(from: NodeIndex, join: NodeIndex, flows: readonly PlanFlow[]): NodeSet {
    const predecessors = this.#predecessors(flows);
    const seen = NodeSet.words(this.#nodes.length);
    const stack = [from];
    while (stack.length > 0) {
      const n = stack.pop()!;
      const bit = 1 << (n & 31);
      if (n === join || (seen[n >>> 5] & bit) !== 0) continue;
      seen[n >>> 5] |= bit;
      for (const p of predecessors[n]) stack.push(p);
    }
    return new NodeSet(seen);
  }

  /**
   * Where a token can come from, per node: flow sources, the activity a
   * boundary event sits on, and the throws of a link catch. Built once.
   */
  #predecessors(flows: readonly PlanFlow[]): readonly (readonly NodeIndex[])[] {
    if (this.#predecessorCache) return this.#predecessorCache;
    const predecessors: NodeIndex[][] = this.#nodes.map(() => []);
    for (const f of flows) predecessors[f.target].push(f.source);
    this.#nodes.forEach((node, i) => {
      if (node.kind === "boundaryEvent" && isEvent(node) && node.attachedToRef) {
        predecessors[i].push(this.#nodeIndex.get(node.attachedToRef)!);
      }
      const target = this.#linkTargetOf(node, this.#nodeScope[i]);
      if (target !== undefined) predecessors[target].push(i);
    });
    return this.#predecessorCache = predecessors;
  }

  #linkTargetOf(node: FlowNode, scope: ScopeIndex): NodeIndex | undefined {
    if (node.kind !== "intermediateThrowEvent") return undefined;
    const name = linkName(node);
    if (name === undefined) return undefined;
    return this.#scopes[scope].nodes.find((i) =>
      this.#nodes[i].kind === "intermediateCatchEvent" && linkName(this.#nodes[i]) === name
    );
  }

  #activity(node: ActivityNode, plan: Mutable<PlanNode>): void {
    const implementation = implementationOf(node);
    if (implementation) plan.implementation = implementation;
    if (node.kind === "scriptTask") {
      const script = this.#expression(node.script);
      if (script) plan.script = script;
      if (node.resultVariable !== undefined) plan.resultVariable = node.resultVariable;
    }
    if (node.kind === "adHocSubProcess") {
      const adHoc: Mutable<PlanAdHoc> = {
        ordering: node.ordering ?? "Parallel",
        cancelRemainingInstances: node.cancelRemainingInstances,
      };
      const completion = this.#expression(node.completionCondition);
      if (completion) adHoc.completionCondition = completion;
      plan.adHoc = adHoc;
    }
    if (node.kind === "callActivity" && node.calledElement) {
      plan.calledElement = processId(node.calledElement);
    }
    const loop = this.#loop(node);
    if (loop) plan.loop = loop;
    if (node.q.retries[0]) plan.retry = node.q.retries[0];
    if (node.q.timeouts[0]) plan.timeout = node.q.timeouts[0];
    const dispatch = node.q.dispatches[0];
    if (dispatch) {
      plan.dispatch = {
        onNoMatch: dispatch.onNoMatch,
        cases: dispatch.cases.flatMap((c) => {
          const when = this.#expression(c.when);
          return when ? [{ when, calledElement: c.calledElement }] : [];
        }),
        ...(dispatch.default === undefined ? {} : { default: dispatch.default }),
      };
    }
  }

  #loop(node: ActivityNode): PlanLoop | undefined {
    const loop = node.loop;
    if (!loop) return undefined;
    if (loop.type === "standard") {
      const out: Mutable<Extract<PlanLoop, { type: "standard" }>> = {
        type: "standard",
        testBefore: loop.testBefore,
      };
      const condition = this.#expression(loop.condition);
      if (condition) out.condition = condition;
      if (loop.maximum !== undefined) out.maximum = loop.maximum;
      return out;
    }
    const out: Mutable<Extract<PlanLoop, { type: "multiInstance" }>> = {
      type: "multiInstance",
      sequential: loop.isSequential,
    };
    const cardinality = this.#expression(loop.loopCardinality);
    if (cardinality) out.cardinality = cardinality;
    const completion = this.#expression(loop.completionCondition);
    if (completion) out.completionCondition = completion;
    if (loop.loopDataInputRef) {
      out.inputCollection = this.#itemName(loop.loopDataInputRef);
      const ref = this.#resolve(loop.loopDataInputRef) ?? loop.loopDataInputRef;
      if (node.io?.inputs.some((i) => i.id === ref)) out.inputCollectionIsInput = true;
    }
    if (loop.loopDataOutputRef) {
      out.outputCollection = this.#itemName(loop.loopDataOutputRef);
      const ref = this.#resolve(loop.loopDataOutputRef) ?? loop.loopDataOutputRef;
      if (node.io?.outputs.some((o) => o.id === ref)) out.outputCollectionIsOutput = true;
    }
    const inputElement = loop.inputDataItem?.name ?? loop.inputDataItem?.id;
    if (inputElement) out.inputElement = inputElement;
    const outputElement = loop.outputDataItem?.name ?? loop.outputDataItem?.id;
    if (outputElement) out.outputElement = outputElement;
    return out;
  }

  /**
   * The name behind a data item id: a data object reference stands for its
   * data object; anything else (data input or output, property, data
   * object) is its `name`, else its id.
   */
  // An activity declares its outputs in its ioSpecification; an event only by the items its
  // output associations read.
  #dataOutputs(node: FlowNode): string[] {
    if (isActivity(node)) return (node.io?.outputs ?? []).map((o) => this.#itemName(o.id));
    const sources = node.dataOutputAssociations.flatMap((a) => a.sources)
      .filter((s) => this.#index.definitions.ids.get(this.#resolve(s) ?? s)?.kind === "dataOutput");
    return [...new Set(sources.map((s) => this.#itemName(s)))];
  }

  #itemName(ref: string): string {
    const id = this.#resolve(ref) ?? ref;
    const entry = this.#index.definitions.ids.get(id);
    if (entry?.kind === "dataObjectReference") {
      const target = this.#referenceOf(id)?.dataObjectRef;
      if (target !== undefined) return this.#dataObjectName(this.#resolve(target) ?? target);
      return entry.name ?? id;
    }
    if (entry?.kind === "dataObject") return this.#dataObjectName(id);
    return entry?.name ?? id;
  }

  #referenceOf(id: string): DataObjectReference | undefined {
    for (const c of this.#index.containers) {
      if (c.process !== this.#process) continue;
      const found = c.content.dataObjectReferences.find((r) => r.id === id);
      if (found) return found;
    }
    return undefined;
  }

  // Modelers often name only the reference; the data object's own name wins.
  #dataObjectName(id: string): string {
    const own = this.#index.definitions.ids.get(id)?.name;
    if (own !== undefined) return own;
    for (const c of this.#index.containers) {
      if (c.process !== this.#process) continue;
      const named = c.content.dataObjectReferences.find((r) =>
        r.name !== undefined && r.dataObjectRef !== undefined &&
        (this.#resolve(r.dataObjectRef) ?? r.dataObjectRef) === id
      );
      if (named) return named.name!;
    }
    return id;
  }

  // A sub-process's properties are local to its body, as its data objects are.
  #dataObjects(content: FlowContainer, owner: NodeIndex | undefined): PlanDataObject[] {
    const objects: PlanDataObject[] = content.dataObjects.map((d) => {
      const value = this.#expression(d.q.values[0]?.expression);
      return { id: d.id, name: this.#dataObjectName(d.id), ...(value ? { value } : {}) };
    });
    const node = owner === undefined ? undefined : this.#nodes[owner];
    const properties = node && "properties" in node ? node.properties : [];
    return [...objects, ...properties.map((p) => ({ id: p.id, name: p.name ?? p.id }))];
  }

  #association(a: DataAssociation): PlanDataAssociation {
    const sources = a.sources.map((s) => this.#resolve(s) ?? s);
    const out: Mutable<PlanDataAssociation> = {
      sources,
      sourceNames: sources.map((s) => this.#itemName(s)),
      assignments: a.assignments.map((x) => {
        const from = this.#expression(x.from);
        return {
          ...(from ? { from } : {}),
          ...(x.to?.text ? { to: x.to.text.replace(/\s*\.\s*/g, ".") } : {}),
        };
      }),
    };
    if (a.target) {
      out.target = this.#resolve(a.target) ?? a.target;
      out.targetName = this.#itemName(out.target);
    }
    const transformation = this.#expression(a.transformation);
    if (transformation) out.transformation = transformation;
    for (const ref of [...out.sources, ...(out.target ? [out.target] : [])]) {
      const store = this.#store(ref);
      if (store) out.store = store;
    }
    return out;
  }

  #store(ref: string): PlanDataAssociation["store"] {
    for (const c of this.#index.containers) {
      if (c.process !== this.#process) continue;
      const reference = c.content.dataStoreReferences.find((r) => r.id === ref);
      const q = reference?.q.stores[0];
      if (!reference || !q) continue;
      const key = this.#expression(q.key);
      if (!key) return undefined;
      const storeId = reference.dataStoreRef ? this.#resolve(reference.dataStoreRef) : undefined;
      const declared = this.#index.definitions.dataStores.find((s) => s.id === storeId);
      return {
        reference: reference.id,
        store: declared?.name ?? reference.name ?? reference.id,
        key,
        forUpdate: q.forUpdate,
        ...(q.field === undefined ? {} : { field: q.field }),
        ...(q.expect === undefined ? {} : { expect: q.expect }),
      };
    }
    return undefined;
  }

  #alias(alias: QAlias): PlanAlias | undefined {
    const expression = this.#expression(alias.expression);
    if (!expression) return undefined;
    return { name: alias.name, expression, unique: alias.unique, onConflict: alias.onConflict };
  }

  #headers(headers: readonly QHeader[]): PlanHeader[] {
    return headers.flatMap((h) => {
      const value = this.#expression(h.value);
      return value ? [{ name: h.name, value }] : [];
    });
  }

  #subscription(node: FlowNode, index: NodeIndex, source: QSource): Subscription {
    const scope = this.#scopes[this.#nodeScope[index]];
    const sub: Mutable<Subscription> = {
      process: this.#process.id,
      node: index,
      nodeId: node.id,
      // A message start of an event sub-process fires inside a running
      // instance, so it is correlated like any other relay.
      role: node.kind === "startEvent" && scope.index === 0 ? "start" : "relay",
      channel: source.channel,
      variable: source.name,
      dataClass: source.dataClass,
      validators: source.validators,
      redactors: source.redactors,
      aliases: source.aliases.map((a) => this.#alias(a)).filter((a): a is PlanAlias => !!a),
      inEventSubProcess: scope.kind === "eventSubProcess",
    };
    if (source.messageTypeValue !== undefined) sub.messageTypeValue = source.messageTypeValue;
    if (source.messageTypePattern !== undefined) {
      sub.messageTypePattern = new RegExp(`^(?:${source.messageTypePattern})$`, "u");
    }
    if (source.ack !== undefined) sub.ack = source.ack;
    const dedupKey = this.#expression(source.dedupKey);
    if (dedupKey) sub.dedupKey = dedupKey;
    if (node.q.onValidations[0]) sub.onValidation = node.q.onValidations[0];
    return sub;
  }

  #finishScope(scope: Mutable<PlanScope>, nodes: readonly PlanNode[]): void {
    const members = scope.nodes.map((i) => nodes[i]);
    scope.entries = this.#entries(scope, members);
    const triggers: EventSubProcessTrigger[] = [];
    for (const n of members) {
      if (n.childScope === undefined || this.#scopes[n.childScope].kind !== "eventSubProcess") {
        continue;
      }
      for (const start of this.#scopes[n.childScope].nodes.map((i) => nodes[i])) {
        if (start.kind !== "startEvent") continue;
        triggers.push({
          scope: n.childScope,
          start: start.index,
          interrupting: start.interrupting,
        });
      }
    }
    scope.eventSubProcesses = triggers;
    const links = new Map<string, NodeIndex>();
    for (const n of members) {
      const name = linkName(this.#nodes[n.index]);
      if (name !== undefined && n.kind === "intermediateCatchEvent") links.set(name, n.index);
    }
    scope.links = new FrozenMap(links);
    for (const n of members) {
      const target = this.#linkTargetOf(this.#nodes[n.index], scope.index);
      if (target !== undefined) (n.trigger as Mutable<PlanTrigger>).linkTarget = target;
      this.#compensation(n as Mutable<PlanNode>, nodes);
    }
  }

  // Where a token entering the scope starts. An ad-hoc body enables what no flow leads to; an
  // embedded body or a called process without a start event starts every activity and gateway no
  // flow leads to, as BPMN prescribes for a process that leaves its start event out.
  #entries(scope: PlanScope, members: readonly PlanNode[]): NodeIndex[] {
    const starts = members.filter((n) => n.kind === "startEvent");
    if (scope.kind === "adHocSubProcess") {
      return members.filter((n) => this.#unprompted(n)).map((n) => n.index);
    }
    if (starts.length > 0 || scope.kind === "eventSubProcess") {
      return starts.map((n) => n.index);
    }
    return members.filter((n) => this.#unprompted(n) && !n.kind.endsWith("Event"))
      .map((n) => n.index);
  }

  // Nodes no flow leads to, except those that only run when something else triggers them.
  #unprompted(n: PlanNode): boolean {
    if (n.incoming.length > 0 || n.kind === "boundaryEvent" || n.isForCompensation) return false;
    return n.childScope === undefined || this.#scopes[n.childScope].kind !== "eventSubProcess";
  }

  // A compensation boundary points at its handler through an association;
  // a sub-process may instead carry its handler inside, as an event
  // sub-process with a compensation start.
  #compensation(node: Mutable<PlanNode>, nodes: readonly PlanNode[]): void {
    if (node.childScope !== undefined) {
      for (const i of this.#scopes[node.childScope].nodes) {
        const inner = nodes[i].childScope;
        if (inner === undefined || this.#scopes[inner].kind !== "eventSubProcess") continue;
        const start = this.#scopes[inner].nodes.find((s) =>
          nodes[s].kind === "startEvent" && nodes[s].trigger?.type === "compensate"
        );
        if (start !== undefined) node.compensationStart = start;
      }
    }
    for (const b of node.boundaries) {
      if (nodes[b].trigger?.type !== "compensate") continue;
      for (const c of this.#index.containers) {
        if (c.process !== this.#process) continue;
        const link = c.content.associations.find((a) => a.sourceRef === nodes[b].id);
        const handler = link ? this.#nodeIndex.get(link.targetRef) : undefined;
        if (handler !== undefined) node.compensationHandler = handler;
      }
    }
  }
}

/**
 * The process id a called element names: a QName's local part. Process ids
 * are unique within a package (its lint checks which file a prefix selects),
 * so the plan keeps the id alone.
 */
function processId(calledElement: string): string {
  return calledElement.slice(calledElement.indexOf(":") + 1);
}
