/** Data objects, data associations with assignments, and data stores through q:store. */
import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";
import { MemoryStore } from "./mini_runtime.ts";

Deno.test("data associations: assignments build nested values; a data task sets its inputs as variables", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:dataObject id="order" name="order"/>
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="prepare"/>
    <bpmn:serviceTask id="prepare">
      <bpmn:ioSpecification><bpmn:dataInput id="shipping"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="i1">
        <bpmn:targetRef>shipping</bpmn:targetRef>
        <bpmn:assignment><bpmn:from>order.address.city</bpmn:from><bpmn:to>shipping.city</bpmn:to></bpmn:assignment>
        <bpmn:assignment><bpmn:from>order.weight * 1.1</bpmn:from><bpmn:to>shipping.weight</bpmn:to></bpmn:assignment>
      </bpmn:dataInputAssociation>
      <bpmn:dataOutputAssociation id="o1">
        <bpmn:assignment><bpmn:from>shipping.weight &gt; 10</bpmn:from><bpmn:to>order.heavy</bpmn:to></bpmn:assignment>
      </bpmn:dataOutputAssociation>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="prepare" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { order: { address: { city: "Lyon" }, weight: 10 } } });
  assert.deepEqual(run.vars.shipping, { city: "Lyon", weight: 11 });
  assert.deepEqual(run.vars.order, { address: { city: "Lyon" }, weight: 10, heavy: true });
});

const STORE = (attributes: string) =>
  bpmn(
    `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="load"/>
    <bpmn:dataStoreReference id="ref" dataStoreRef="profiles"><bpmn:extensionElements><q:store key="customer" ${attributes}/></bpmn:extensionElements></bpmn:dataStoreReference>
    <bpmn:task id="load">
      <bpmn:ioSpecification><bpmn:dataInput id="current"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="r"><bpmn:sourceRef>ref</bpmn:sourceRef><bpmn:targetRef>current</bpmn:targetRef></bpmn:dataInputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f2" sourceRef="load" targetRef="save"/>
    <bpmn:task id="save">
      <bpmn:dataOutputAssociation id="w"><bpmn:targetRef>ref</bpmn:targetRef><bpmn:transformation>current + 1</bpmn:transformation></bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f3" sourceRef="save" targetRef="e"/><bpmn:endEvent id="e"/>`,
    `<bpmn:dataStore id="profiles" name="profiles"/>`,
  );

Deno.test("q:store field: reads and writes one field of the stored map", async () => {
  const store = new MemoryStore();
  store.put("profiles", "C-1", { visits: 4, name: "Ada" });
  const run = new Instance(await planOf(STORE(`field="visits"`)), { ports: { store } });
  const r = await run.start({ variables: { customer: "C-1" } });
  assert.equal(run.vars.current, 4);
  assert.deepEqual(r.effects.storeWrites, [{
    store: "profiles",
    key: "C-1",
    field: "visits",
    value: 5,
  }]);
  store.commit(r.effects);
  assert.deepEqual(store.get("profiles", "C-1"), { visits: 5, name: "Ada" });
});

Deno.test('q:store expect="unchanged": the write carries the revision read, so a concurrent change is detected', async () => {
  const store = new MemoryStore();
  store.put("profiles", "C-1", 7);
  const run = new Instance(await planOf(STORE(`expect="unchanged"`)), { ports: { store } });
  const r = await run.start({ variables: { customer: "C-1" } });
  assert.deepEqual(r.effects.storeWrites, [{
    store: "profiles",
    key: "C-1",
    value: 8,
    expectRev: 1,
  }]);
  store.put("profiles", "C-1", 100);
  store.rows.get("profiles/C-1")!.rev = 2;
  assert.equal(
    store.commit(r.effects),
    false,
    "the row moved on: the compare-and-set refuses the write",
  );
  assert.deepEqual(store.reads.map((x) => x.forUpdate), [false]);
});

Deno.test("a data store read without a store port fails the instance at the reading node", async () => {
  const run = new Instance(await planOf(STORE("")));
  await run.start({ variables: { customer: "C-1" } });
  assert.deepEqual([run.state!.failure!.code, run.state!.failure!.node], [
    "SUTRA.RUNTIME.DATASTORE.READ_FAILED",
    "load",
  ]);
});

Deno.test("an asynchronous store port is awaited; a rejected read fails the instance", async () => {
  const ok = new Instance(await planOf(STORE("")), {
    ports: { store: { read: () => Promise.resolve({ value: 41, rev: 3 }) } },
  });
  const r = await ok.start({ variables: { customer: "C-9" } });
  assert.deepEqual(r.effects.storeWrites.map((w) => w.value), [42]);
  const broken = new Instance(await planOf(STORE("")), {
    ports: { store: { read: () => Promise.reject(new Error("connection reset")) } },
  });
  await broken.start({ variables: { customer: "C-9" } });
  assert.equal(broken.state!.failure!.code, "SUTRA.RUNTIME.DATASTORE.READ_FAILED");
  assert.match(broken.state!.failure!.message, /connection reset/);
});

Deno.test("variables keep their FEEL types across parks: numbers, booleans, null, dates, contexts", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="stamp"/>
    <bpmn:scriptTask id="stamp" scriptFormat="feel"><bpmn:script>{due: date("2026-05-01"), approved: false, note: null, lines: [1, {sku: "A-1"}]}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="stamp" targetRef="hold"/>
    <bpmn:userTask id="hold"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f3" sourceRef="hold" targetRef="check"/>
    <bpmn:scriptTask id="check" scriptFormat="feel"><bpmn:script>{typed: amount &gt; 100 and not(approved) and note = null and due &lt; date("2026-06-01") and lines[2].sku = "A-1"}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f4" sourceRef="check" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { amount: 1250.75 } });
  await run.message("hold", "go");
  assert.equal(run.vars.typed, true);
});

Deno.test("declared data outputs: an association reads the task's output of that name, or the message a wait received", async () => {
  const ports = { tasks: { run: () => ({ outputs: { y: 4, z: 5 } }) } };
  const io = (outputs: string) =>
    `<bpmn:ioSpecification>${outputs}<bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>`;
  const run = new Instance(
    await planOf(bpmn(
      `
    ${
        ["r", "tenfold", "missing", "copy", "amount"].map((d) =>
          `<bpmn:dataObject id="${d}" name="${d}"/>`
        ).join("")
      }
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:serviceTask id="t" implementation="registered:x">
      ${io(`<bpmn:dataOutput id="y" name="y"/><bpmn:dataOutput id="w" name="w"/>`)}
      <bpmn:dataOutputAssociation id="o1"><bpmn:sourceRef>y</bpmn:sourceRef><bpmn:targetRef>r</bpmn:targetRef></bpmn:dataOutputAssociation>
      <bpmn:dataOutputAssociation id="o2"><bpmn:sourceRef>y</bpmn:sourceRef><bpmn:targetRef>tenfold</bpmn:targetRef><bpmn:transformation>y * 10</bpmn:transformation></bpmn:dataOutputAssociation>
      <bpmn:dataOutputAssociation id="o3"><bpmn:sourceRef>w</bpmn:sourceRef><bpmn:targetRef>missing</bpmn:targetRef></bpmn:dataOutputAssociation>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="r1"/>
    <bpmn:receiveTask id="r1" messageRef="M"><bpmn:extensionElements><q:source channel="r"/></bpmn:extensionElements>
      ${io(`<bpmn:dataOutput id="msg" name="msg"/>`)}
      <bpmn:dataOutputAssociation id="o4"><bpmn:sourceRef>msg</bpmn:sourceRef><bpmn:targetRef>copy</bpmn:targetRef></bpmn:dataOutputAssociation>
      <bpmn:dataOutputAssociation id="o5"><bpmn:targetRef>amount</bpmn:targetRef><bpmn:transformation>result.v + 1</bpmn:transformation></bpmn:dataOutputAssociation>
    </bpmn:receiveTask>
    <bpmn:sequenceFlow id="f3" sourceRef="r1" targetRef="e"/><bpmn:endEvent id="e"/>`,
      `<bpmn:message id="M" name="m"/>`,
    )),
    { ports },
  );
  await run.start({ variables: { y: "a variable, not the output" } });
  assert.equal(run.vars.r, 4);
  assert.equal(run.vars.tenfold, 40);
  assert.equal(run.vars.missing, null, "an output the task did not produce is null");
  await run.message("r1", { v: 1 });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.copy, { v: 1 }, "a single output holds the whole message");
  assert.equal(run.vars.amount, 2, "the message is the wait's result");
});
