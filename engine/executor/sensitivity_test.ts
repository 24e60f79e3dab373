import assert from "node:assert/strict";
import { FeelContext } from "../../lang/feel/mod.ts";
import { type ExecutionPlan, loadBpmn } from "../bpmn/mod.ts";
import { ManualClock } from "../core/mod.ts";
import { decodeSnapshot, encodeSnapshot } from "./snapshot.ts";
import { sensitiveVariables } from "./sensitivity.ts";
import type { StorePort, StoreReadRequest } from "./ports.ts";
import type { InstanceState } from "./state.ts";
import { step } from "./step.ts";

// Start → Load (reads `accounts[payload.id]` into the input `account`) →
// Derive (copies `account.balance` into `balance`, `ref` into `refCopy`) →
// Hold (parks) → Final (copies `account.balance` into `after`) → end.
const PROCESS = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:t">
  <bpmn:dataStore id="store" name="accounts"/>
  <bpmn:process id="p" isExecutable="true">
    <bpmn:extensionElements><q:variables><q:variable name="ref" sensitive="true"/></q:variables></bpmn:extensionElements>
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Load"/>
    <bpmn:dataStoreReference id="dsr" name="accounts" dataStoreRef="store">
      <bpmn:extensionElements><q:store key="payload.id"/></bpmn:extensionElements>
    </bpmn:dataStoreReference>
    <bpmn:task id="Load">
      <bpmn:ioSpecification>
        <bpmn:dataInput id="account" name="account"/>
        <bpmn:inputSet><bpmn:dataInputRefs>account</bpmn:dataInputRefs></bpmn:inputSet>
      </bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="read"><bpmn:sourceRef>dsr</bpmn:sourceRef><bpmn:targetRef>account</bpmn:targetRef></bpmn:dataInputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f2" sourceRef="Load" targetRef="Derive"/>
    <bpmn:task id="Derive">
      <bpmn:dataOutputAssociation id="derive">
        <bpmn:assignment><bpmn:from>account.balance * 2</bpmn:from><bpmn:to>balance</bpmn:to></bpmn:assignment>
        <bpmn:assignment><bpmn:from>ref</bpmn:from><bpmn:to>refCopy</bpmn:to></bpmn:assignment>
        <bpmn:assignment><bpmn:from>payload.id</bpmn:from><bpmn:to>plain</bpmn:to></bpmn:assignment>
      </bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f3" sourceRef="Derive" targetRef="Hold"/>
    <bpmn:userTask id="Hold"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="Hold" targetRef="Final"/>
    <bpmn:task id="Final">
      <bpmn:dataOutputAssociation id="final">
        <bpmn:assignment><bpmn:from>account.balance</bpmn:from><bpmn:to>after</bpmn:to></bpmn:assignment>
      </bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f5" sourceRef="Final" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;

/** A store holding one account, declaring `dataClass` (or none). */
function accounts(dataClass?: string): StorePort & { reads: StoreReadRequest[] } {
  const reads: StoreReadRequest[] = [];
  return {
    reads,
    read(request) {
      reads.push(request);
      return request.key === "a-1"
        ? { value: { balance: 250, owner: "Ada" }, rev: 1, ...(dataClass ? { dataClass } : {}) }
        : undefined;
    },
  };
}

async function parked(
  store: StorePort,
): Promise<{ plan: ExecutionPlan; state: InstanceState }> {
  const plan = (await loadBpmn(new TextEncoder().encode(PROCESS), { uri: "p.bpmn" })).plan!;
  const r = await step(
    plan,
    undefined,
    { type: "start", instanceId: "i-1", variables: { payload: { id: "a-1" }, ref: "R-9" } },
    { clock: new ManualClock(0), store },
  );
  assert.equal(r.state!.status, "WAITING", JSON.stringify(r.state!.failure));
  return { plan, state: r.state! };
}

function rootVars(state: InstanceState) {
  return [...state.scopes.values()].find((s) => s.parent === undefined)!.vars;
}

function snapshotText(plan: ExecutionPlan, state: InstanceState): string {
  return new TextDecoder().decode(encodeSnapshot(plan, state));
}

Deno.test("sensitivity: a value read from a classified store marks the variable it lands in; the flow keeps the real value", async () => {
  const { state } = await parked(accounts("financial"));
  assert.deepEqual(Object.fromEntries(state.sensitive), {
    account: "financial",
    balance: "financial",
    refCopy: "sensitive",
  });
  const account = rootVars(state).get("account");
  assert.ok(account instanceof FeelContext);
  assert.equal(String(account.entries.get("balance")), "250");
  assert.equal(String(rootVars(state).get("balance")), "500");
  assert.equal(rootVars(state).get("plain"), "a-1");
});

Deno.test("sensitivity: the marks survive a snapshot round trip and the steps after it", async () => {
  const { plan, state } = await parked(accounts("financial"));
  const bytes = encodeSnapshot(plan, state);
  assert.match(
    new TextDecoder().decode(bytes),
    /^sutra\.sensitive=\{"account":"financial","balance":"financial","refCopy":"sensitive"\}$/m,
  );
  const restored = decodeSnapshot(plan, bytes).state!;
  assert.deepEqual(restored.sensitive, state.sensitive);
  assert.deepEqual(encodeSnapshot(plan, restored), bytes);

  const wait = [...restored.waits.values()][0];
  const done = await step(plan, restored, {
    type: "message",
    wait: wait.id,
    message: { payload: { ok: true } },
  }, { clock: new ManualClock(0) });
  assert.equal(done.state!.status, "COMPLETED");
  assert.equal(done.state!.sensitive.get("account"), "financial");
  assert.equal(done.state!.sensitive.get("after"), "financial");
  assert.equal(String(rootVars(done.state!).get("after")), "250");
});

Deno.test("sensitivity: a q:variables sensitive variable is reported without any store", async () => {
  const { plan, state } = await parked(accounts());
  assert.deepEqual(Object.fromEntries(state.sensitive), { refCopy: "sensitive" });
  assert.deepEqual(Object.fromEntries(sensitiveVariables(plan, state)), {
    ref: "sensitive",
    refCopy: "sensitive",
  });
  assert.equal(rootVars(state).get("ref"), "R-9");
});

Deno.test("sensitivity: an unclassified store marks nothing and writes no sutra.sensitive key", async () => {
  const plan = (await loadBpmn(
    new TextEncoder().encode(PROCESS.replace(/<q:variables>.*<\/q:variables>/, "")),
    { uri: "p.bpmn" },
  )).plan!;
  const r = await step(
    plan,
    undefined,
    { type: "start", instanceId: "i-1", variables: { payload: { id: "a-1" } } },
    { clock: new ManualClock(0), store: accounts() },
  );
  assert.equal(r.state!.sensitive.size, 0);
  assert.doesNotMatch(snapshotText(plan, r.state!), /sutra\.sensitive/);
});

Deno.test("sensitivity: a snapshot written before marks existed reads with none", async () => {
  const { plan, state } = await parked(accounts("pii"));
  const text = snapshotText(plan, state);
  const older = text.replace(/^sutra\.sensitive=.*\n/m, "");
  assert.notEqual(older, text);
  const decoded = decodeSnapshot(plan, new TextEncoder().encode(older));
  assert.equal(decoded.diagnostics, undefined);
  assert.equal(decoded.state!.sensitive.size, 0);
  assert.equal(new TextDecoder().decode(encodeSnapshot(plan, decoded.state!)), older);
});

Deno.test("sensitivity: a read the step answers from its own uncommitted write asks the store for its class", async () => {
  const xml = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:t">
  <bpmn:dataStore id="store" name="accounts"/>
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="tx"/>
    <bpmn:transaction id="tx">
      <bpmn:startEvent id="ts"/><bpmn:sequenceFlow id="t1" sourceRef="ts" targetRef="Write"/>
      <bpmn:dataStoreReference id="dsr" name="accounts" dataStoreRef="store">
        <bpmn:extensionElements><q:store key="&quot;a-2&quot;"/></bpmn:extensionElements>
      </bpmn:dataStoreReference>
      <bpmn:task id="Write">
        <bpmn:dataOutputAssociation id="w"><bpmn:targetRef>dsr</bpmn:targetRef><bpmn:transformation>{balance: 7}</bpmn:transformation></bpmn:dataOutputAssociation>
      </bpmn:task>
      <bpmn:sequenceFlow id="t2" sourceRef="Write" targetRef="Read"/>
      <bpmn:task id="Read">
        <bpmn:ioSpecification>
          <bpmn:dataInput id="back" name="back"/>
          <bpmn:inputSet><bpmn:dataInputRefs>back</bpmn:dataInputRefs></bpmn:inputSet>
        </bpmn:ioSpecification>
        <bpmn:dataInputAssociation id="r"><bpmn:sourceRef>dsr</bpmn:sourceRef><bpmn:targetRef>back</bpmn:targetRef></bpmn:dataInputAssociation>
      </bpmn:task>
      <bpmn:sequenceFlow id="t3" sourceRef="Read" targetRef="te"/><bpmn:endEvent id="te"/>
    </bpmn:transaction>
    <bpmn:sequenceFlow id="f2" sourceRef="tx" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;
  const plan = (await loadBpmn(new TextEncoder().encode(xml), { uri: "p.bpmn" })).plan!;
  const store = accounts();
  const asked: string[] = [];
  const r = await step(plan, undefined, { type: "start", instanceId: "i-1" }, {
    clock: new ManualClock(0),
    store: {
      read: store.read,
      dataClass(name) {
        asked.push(name);
        return Promise.resolve("pci");
      },
    },
  });
  assert.equal(r.state!.status, "COMPLETED", JSON.stringify(r.state!.failure));
  assert.deepEqual(store.reads, []);
  assert.deepEqual(asked, ["accounts"]);
  assert.equal(r.state!.sensitive.get("back"), "pci");
  assert.deepEqual(r.effects.storeWrites.map((w) => w.value), [{ balance: 7 }]);
});

Deno.test("sensitivity: marks follow values into a called process and back out", async () => {
  const xml = `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:t">
  <bpmn:dataStore id="store" name="accounts"/>
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Load"/>
    <bpmn:dataStoreReference id="dsr" name="accounts" dataStoreRef="store">
      <bpmn:extensionElements><q:store key="&quot;a-1&quot;"/></bpmn:extensionElements>
    </bpmn:dataStoreReference>
    <bpmn:task id="Load">
      <bpmn:ioSpecification>
        <bpmn:dataInput id="account" name="account"/>
        <bpmn:inputSet><bpmn:dataInputRefs>account</bpmn:dataInputRefs></bpmn:inputSet>
      </bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="read"><bpmn:sourceRef>dsr</bpmn:sourceRef><bpmn:targetRef>account</bpmn:targetRef></bpmn:dataInputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f2" sourceRef="Load" targetRef="Price"/>
    <bpmn:callActivity id="Price" calledElement="pricing">
      <bpmn:ioSpecification><bpmn:dataInput id="base"/><bpmn:dataInput id="fee"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="in1"><bpmn:targetRef>base</bpmn:targetRef><bpmn:transformation>account.balance</bpmn:transformation></bpmn:dataInputAssociation>
      <bpmn:dataInputAssociation id="in2"><bpmn:targetRef>fee</bpmn:targetRef><bpmn:transformation>3</bpmn:transformation></bpmn:dataInputAssociation>
      <bpmn:dataOutputAssociation id="out1"><bpmn:assignment><bpmn:from>total</bpmn:from><bpmn:to>quote</bpmn:to></bpmn:assignment></bpmn:dataOutputAssociation>
    </bpmn:callActivity>
    <bpmn:sequenceFlow id="f3" sourceRef="Price" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
  <bpmn:process id="pricing" isExecutable="true">
    <bpmn:startEvent id="ps"/><bpmn:sequenceFlow id="p1" sourceRef="ps" targetRef="calc"/>
    <bpmn:task id="calc">
      <bpmn:dataOutputAssociation id="c"><bpmn:assignment><bpmn:from>base + fee</bpmn:from><bpmn:to>total</bpmn:to></bpmn:assignment></bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="p2" sourceRef="calc" targetRef="pe"/><bpmn:endEvent id="pe"/>
  </bpmn:process>
</bpmn:definitions>`;
  const plan = (await loadBpmn(new TextEncoder().encode(xml), { uri: "p.bpmn" })).plan!;
  const r = await step(plan, undefined, { type: "start", instanceId: "i-1", process: "p" }, {
    clock: new ManualClock(0),
    store: accounts("phi"),
  });
  assert.equal(r.state!.status, "COMPLETED", JSON.stringify(r.state!.failure));
  assert.equal(String(rootVars(r.state!).get("quote")), "253");
  assert.deepEqual(Object.fromEntries(r.state!.sensitive), {
    account: "phi",
    base: "phi",
    quote: "phi",
    total: "phi",
  });
});
