/**
 * The states behind the snapshot golden corpus (`tests/fixtures/executor/snapshots/`):
 * each scenario drives an instance to an interesting resting point.
 *
 * @module
 */
import type { ExecutionPlan } from "../../engine/bpmn/mod.ts";
import type { InstanceState } from "../../engine/executor/mod.ts";
import { bpmn, fixturePlan, Instance, planOf } from "./harness.ts";
import { echoTemplates, MemoryStore } from "./mini_runtime.ts";

/** A named resting state. */
export interface GoldenScenario {
  readonly name: string;
  run(): Promise<{ plan: ExecutionPlan; state: InstanceState }>;
}

async function at(
  plan: ExecutionPlan,
  drive: (run: Instance) => Promise<unknown>,
  ports = {},
): Promise<{ plan: ExecutionPlan; state: InstanceState }> {
  const run = new Instance(plan, { ports });
  await drive(run);
  return { plan, state: run.state! };
}

/** Every scenario of the corpus. */
export const GOLDEN: readonly GoldenScenario[] = [
  {
    name: "approval_parked",
    run: async () =>
      at(
        await fixturePlan("approval_hold.bpmn"),
        (r) => r.start({ node: "Start", message: { payload: { E2EId: "E2E-1", Amount: 1500.5 } } }),
      ),
  },
  {
    name: "approval_completed",
    run: async () =>
      at(await fixturePlan("approval_hold.bpmn"), async (r) => {
        await r.start({ node: "Start", message: { payload: { E2EId: "E2E-2", Amount: 20 } } });
        await r.message("Hold", { E2EId: "E2E-2", Decision: "APPROVE" });
      }),
  },
  {
    name: "strings_only",
    run: async () =>
      at(
        await fixturePlan("approval_hold.bpmn"),
        (r) => r.start({ node: "Start", message: { payload: "raw text body" } }),
      ),
  },
  {
    name: "transfer_rejected",
    run: async () => {
      const store = new MemoryStore();
      store.put("accounts", "alice", { balance: 1, frozen: false });
      store.put("accounts", "bob", { balance: 2, frozen: false });
      return at(
        await fixturePlan("money_transfer.bpmn"),
        (r) =>
          r.start({
            node: "Start",
            message: { payload: { fromId: "alice", toId: "bob", amount: 5, E2EId: "X" } },
          }),
        {
          store,
          templates: echoTemplates(["reason"]),
        },
      );
    },
  },
  {
    name: "nested_parked",
    run: async () =>
      at(
        await fixturePlan("nested_scopes.bpmn"),
        (r) => r.start({ variables: { orders: ["A", "B"] } }),
        {
          store: new MemoryStore(),
        },
      ),
  },
  {
    name: "retry_backoff",
    run: async () =>
      at(
        await planOf(bpmn(`
          <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
          <bpmn:serviceTask id="t" implementation="registered:flaky"><bpmn:extensionElements><q:retry maxAttempts="3" initialDelay="PT30S"/></bpmn:extensionElements></bpmn:serviceTask>
          <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/><bpmn:endEvent id="e"/>`)),
        (r) => r.start({ variables: { due: { when: "later" } } }),
        { tasks: { run: () => ({ failure: { code: "SUTRA.TASK.BUSY", message: "busy" } }) } },
      ),
  },
  {
    name: "compensating",
    run: async () =>
      at(
        await planOf(bpmn(`
          <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="ship"/>
          <bpmn:task id="ship"/>
          <bpmn:boundaryEvent id="us" attachedToRef="ship"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
          <bpmn:userTask id="recall" isForCompensation="true"><bpmn:extensionElements><q:source channel="recalls"/></bpmn:extensionElements></bpmn:userTask>
          <bpmn:association id="a1" sourceRef="us" targetRef="recall"/>
          <bpmn:sequenceFlow id="f2" sourceRef="ship" targetRef="undo"/>
          <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>
          <bpmn:sequenceFlow id="f3" sourceRef="undo" targetRef="e"/><bpmn:endEvent id="e"/>`)),
        (r) => r.start({ variables: { when: new Date(Date.UTC(2026, 0, 2)) } }),
      ),
  },
  {
    name: "failed",
    run: async () =>
      at(
        await planOf(bpmn(`
          <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="calc"/>
          <bpmn:scriptTask id="calc" scriptFormat="feel"><bpmn:script>total * missing</bpmn:script></bpmn:scriptTask>
          <bpmn:sequenceFlow id="f2" sourceRef="calc" targetRef="e"/><bpmn:endEvent id="e"/>`)),
        (r) => r.start({ variables: { total: 3 } }),
      ),
  },
];
