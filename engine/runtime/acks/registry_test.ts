import assert from "node:assert/strict";
import { createLogger } from "../../core/mod.ts";
import type { AckVerdict } from "../../core/transport.ts";
import { DeferredAckRegistry } from "./registry.ts";

const T = "t";

function setup(options: { capacity?: number; timeoutMs?: number } = {}) {
  let now = 1_000;
  const registry = new DeferredAckRegistry({
    capacity: options.capacity ?? 10,
    timeoutMs: options.timeoutMs ?? 5_000,
    sweepMs: 1_000,
    logger: createLogger("acks", { filter: "error", write: () => {} }),
    now: () => now,
  });
  const verdicts: { name: string; verdict: AckVerdict }[] = [];
  const open = (name: string) =>
    registry.open({ settle: (verdict) => verdicts.push({ name, verdict }) }, `ch-${name}`);
  return { registry, verdicts, open, advance: (ms: number) => now += ms };
}

const settled = (...instances: [string, string][]) => ({
  kind: "settled" as const,
  instances: instances.map(([instanceId, status]) => ({ instanceId, status })),
});

Deno.test("a parked instance's delivery is acknowledged when the instance completes", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  assert.deepEqual(hold.seal(T, settled(["i1", "WAITING"])), []);
  assert.equal(verdicts.length, 0);
  registry.ended(T, "i2", "COMPLETED");
  registry.ended(T, "i1", "RUNNING");
  assert.equal(verdicts.length, 0);
  registry.ended(T, "i1", "COMPLETED");
  assert.deepEqual(verdicts, [{ name: "a", verdict: { kind: "ack" } }]);
  assert.equal(registry.size, 0);
});

Deno.test("an instance that ended in the delivery's own step is acknowledged at sealing", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  registry.ended(T, "i1", "COMPLETED");
  assert.equal(verdicts.length, 0, "not before the dispatch is over");
  hold.seal(T, settled(["i1", "COMPLETED"]));
  assert.deepEqual(verdicts.map((v) => v.verdict.kind), ["ack"]);
});

Deno.test("an end heard between the commit and the seal is not undone by the older outcome", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  // Another lane resumed and completed the instance before this dispatch returned.
  registry.ended(T, "i1", "COMPLETED");
  hold.seal(T, settled(["i1", "WAITING"]));
  assert.deepEqual(verdicts.map((v) => v.verdict.kind), ["ack"]);
});

Deno.test("a failed instance refuses the delivery for good", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  hold.seal(T, settled(["i1", "WAITING"]));
  registry.ended(T, "i1", "FAILED");
  const [{ verdict }] = verdicts;
  assert.equal(verdict.kind, "nack");
  assert.ok(verdict.kind === "nack" && verdict.permanent);
  assert.equal(verdict.kind === "nack" && verdict.diagnostic.code, "SUTRA.ACK.DEFERRED_NACKED");
});

Deno.test("a commit that did not go through takes its name back and a refusal settles nothing", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  hold.forget(T, "i1");
  hold.seal(T, { kind: "refused", refusal: "conflict", diagnostics: [] });
  registry.ended(T, "i1", "COMPLETED");
  assert.equal(verdicts.length, 0);
  assert.equal(registry.size, 0);
});

Deno.test("a broadcast delivery waits for every instance and fails if one fails", () => {
  const { registry, verdicts, open } = setup();
  const hold = open("a");
  hold.expect(T, "i1");
  hold.expect(T, "i2");
  hold.seal(T, settled(["i1", "WAITING"], ["i2", "WAITING"]));
  registry.ended(T, "i1", "FAILED");
  assert.equal(verdicts.length, 0);
  registry.ended(T, "i2", "COMPLETED");
  assert.deepEqual(verdicts.map((v) => v.verdict.kind), ["nack"]);
});

Deno.test("a redelivery's instance is named at sealing, for the caller to check", () => {
  const { registry, verdicts, open } = setup();
  const live = open("live");
  assert.deepEqual(live.seal(T, settled(["i1", "RUNNING"])), ["i1"]);
  const done = open("done");
  assert.deepEqual(done.seal(T, settled(["i2", "PURGED"])), []);
  assert.deepEqual(verdicts, [{ name: "done", verdict: { kind: "ack" } }]);
  registry.ended(T, "i1", "TERMINATED");
  assert.deepEqual(verdicts.map((v) => v.name), ["done", "live"]);
});

Deno.test("beyond the capacity the oldest hold is released for redelivery", () => {
  const { verdicts, open } = setup({ capacity: 2 });
  for (const name of ["a", "b", "c"]) {
    const hold = open(name);
    hold.expect(T, name);
    hold.seal(T, settled([name, "WAITING"]));
  }
  assert.equal(verdicts.length, 1);
  const [{ name, verdict }] = verdicts;
  assert.equal(name, "a");
  assert.ok(verdict.kind === "nack" && !verdict.permanent);
  assert.equal(verdict.kind === "nack" && verdict.diagnostic.code, "SUTRA.ACK.DEFERRED_OVERFLOW");
});

Deno.test("a hold past the timeout is released for redelivery, a younger one is kept", () => {
  const { registry, verdicts, open, advance } = setup({ timeoutMs: 5_000 });
  open("old").seal(T, settled(["i1", "WAITING"]));
  advance(3_000);
  open("young").seal(T, settled(["i2", "WAITING"]));
  advance(1_999);
  registry.sweep();
  assert.equal(verdicts.length, 0);
  advance(1);
  registry.sweep();
  assert.deepEqual(verdicts.map((v) => v.name), ["old"]);
  const [{ verdict }] = verdicts;
  assert.ok(verdict.kind === "nack" && !verdict.permanent);
  assert.equal(verdict.kind === "nack" && verdict.diagnostic.code, "SUTRA.ACK.DEFERRED_TIMEOUT");
  registry.ended(T, "i1", "COMPLETED");
  assert.equal(verdicts.length, 1, "settled once");
  assert.equal(registry.size, 1);
});

Deno.test("a transport that throws while settling does not reach the committing step", () => {
  const { registry } = setup();
  const throwing = registry.open({
    settle: () => {
      throw new Error("boom");
    },
  }, "c");
  throwing.expect(T, "i1");
  throwing.seal(T, settled(["i1", "WAITING"]));
  registry.ended(T, "i1", "COMPLETED");
  assert.equal(registry.size, 0);
});
