/**
 * Drives process instances through the executor for scenario tests. Every
 * step's resulting state is written as a snapshot, read back, written
 * again (the bytes must match), and the next step continues from the
 * decoded copy — so every scenario also proves the instance survives a
 * park exactly.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type FeelValue, toJs } from "../../lang/feel/mod.ts";
import { type ExecutionPlan, loadBpmn } from "../../engine/bpmn/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import {
  createExecutor,
  decodeSnapshot,
  type Effects,
  encodeSnapshot,
  type ExecutionListener,
  type InstanceState,
  type Ports,
  type StartInput,
  type StepInput,
  type StepResult,
  type Wait,
} from "../../engine/executor/mod.ts";

const FIXTURES = new URL("../fixtures/executor/", import.meta.url);

/** Wraps process content in a definitions document with the BPMN and q: namespaces. */
export function bpmn(process: string, roots = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0"
  id="defs" targetNamespace="urn:test">
${roots}
<bpmn:process id="p" isExecutable="true">
${process}
</bpmn:process>
</bpmn:definitions>`;
}

/** Loads BPMN text, failing the test with the diagnostics when it does not load. */
export async function planOf(xml: string, uri = "test.bpmn"): Promise<ExecutionPlan> {
  const r = await loadBpmn(new TextEncoder().encode(xml), { uri });
  assert.ok(
    r.ok,
    r.diagnostics.map((d) => `${d.code} ${d.source?.line}: ${d.message}`).join("\n"),
  );
  return r.plan!;
}

/** Loads a file of `tests/fixtures/executor/`. */
export async function fixturePlan(name: string): Promise<ExecutionPlan> {
  return planOf(await Deno.readTextFile(new URL(name, FIXTURES)), name);
}

/** Options for {@link Instance}. */
export interface InstanceOptions {
  readonly ports?: Omit<Ports, "clock">;
  readonly listeners?: readonly ExecutionListener[];
}

/** One process instance under test. */
export class Instance {
  readonly plan: ExecutionPlan;
  readonly clock: ManualClock;
  readonly #ports: Ports;
  readonly #executor;
  state?: InstanceState;
  /** Effects of every step, in order. */
  readonly history: Effects[] = [];
  last?: StepResult;

  constructor(plan: ExecutionPlan, options: InstanceOptions = {}) {
    this.plan = plan;
    this.clock = new ManualClock("2026-01-01T00:00:00Z");
    this.#ports = { ...options.ports, clock: this.clock };
    this.#executor = createExecutor({ listeners: options.listeners ?? [] });
  }

  /** Starts the instance. */
  start(input: Partial<Omit<StartInput, "type">> = {}): Promise<StepResult> {
    return this.step({ type: "start", instanceId: "inst-1", ...input });
  }

  /** Runs one step; a refusal fails the test. */
  async step(input: StepInput): Promise<StepResult> {
    const r = await this.attempt(input);
    assert.equal(r.refusal, undefined, r.refusal?.message ?? "");
    return r;
  }

  /** Runs one step that may be refused (the state is then unchanged). */
  async attempt(input: StepInput): Promise<StepResult> {
    const r = await this.#executor.step(this.plan, this.state, input, this.#ports);
    this.last = r;
    if (r.refusal) return r;
    this.history.push(r.effects);
    const bytes = encodeSnapshot(this.plan, r.state!);
    const decoded = decodeSnapshot(this.plan, bytes);
    assert.equal(decoded.diagnostics, undefined, decoded.diagnostics?.[0].message ?? "");
    assert.equal(
      new TextDecoder().decode(encodeSnapshot(this.plan, decoded.state!)),
      new TextDecoder().decode(bytes),
      "decode(encode(state)) re-encodes to the same bytes",
    );
    this.state = decoded.state;
    return r;
  }

  /** The wait armed at `node` (a catch, boundary, event sub-process start or task). */
  wait(node: string, purpose?: Wait["purpose"]): Wait {
    const w = this.findWait(node, purpose);
    assert.ok(w, `no wait at '${node}'; waiting: ${this.waitingAt().join(", ")}`);
    return w;
  }

  /** The wait at `node`, if armed. */
  findWait(node: string, purpose?: Wait["purpose"]): Wait | undefined {
    for (const w of this.state?.waits.values() ?? []) {
      const p = this.plan.processById.get(w.process)!;
      if (p.nodes[w.node].id === node && (purpose === undefined || w.purpose === purpose)) return w;
    }
    return undefined;
  }

  /** Node ids of every armed wait. */
  waitingAt(): string[] {
    return [...this.state?.waits.values() ?? []].map((w) =>
      this.plan.processById.get(w.process)!.nodes[w.node].id
    );
  }

  /** Delivers a message to the wait at `node`. */
  message(
    node: string,
    payload: unknown,
    options: { headers?: Record<string, string>; purpose?: Wait["purpose"] } = {},
  ): Promise<StepResult> {
    return this.step({
      type: "message",
      wait: this.wait(node, options.purpose).id,
      message: { payload, ...(options.headers ? { headers: options.headers } : {}) },
    });
  }

  /** Moves the clock to the timer at `node` and fires it. */
  fire(node: string, purpose?: Wait["purpose"]): Promise<StepResult> {
    const w = this.wait(node, purpose);
    assert.equal(w.kind, "timer");
    if (w.due! > this.clock.now()) this.clock.set(w.due!);
    return this.step({ type: "timer", wait: w.id });
  }

  /** The status. */
  get status(): string {
    return this.state!.status;
  }

  /** Variables of the process scope as plain JS. */
  get vars(): Record<string, unknown> {
    const root = [...this.state!.scopes.values()].find((s) => s.parent === undefined);
    const out: Record<string, unknown> = {};
    for (const [k, v] of root?.vars ?? []) out[k] = toJs(v as FeelValue);
    return out;
  }

  /** Completed node ids. */
  get completed(): Set<string> {
    return this.state!.completed;
  }

  /** Every effect of a kind across all steps. */
  all<K extends keyof Effects>(kind: K): Effects[K][number][] {
    return this.history.flatMap((e) => [...e[kind]]) as Effects[K][number][];
  }
}
