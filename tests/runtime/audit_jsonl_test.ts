import assert from "node:assert/strict";
import { createLogger } from "../../engine/core/log.ts";
import { step } from "../../engine/executor/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import {
  type AuditRecord,
  AuditSinks,
  JsonlAuditSink,
  parseUntil,
  pathSegment,
  replayInstance,
} from "../../engine/runtime/audit/mod.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { auditReplayCommand } from "../../cli/audit_replay.ts";
import { CARD, parkedPayment, paymentPlan, SECRET } from "./protection_support.ts";

const quiet = createLogger("audit", { filter: "error", write: () => {} });

function record(
  tenant: string,
  instanceId: string,
  seq: number,
  at: string,
  type: string,
): AuditRecord {
  return { tenant, instanceId, processId: "p", deploymentId: "d", seq, at, type };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await filesUnder(path));
    else out.push(path);
  }
  return out.sort();
}

async function textUnder(dir: string): Promise<string> {
  let text = "";
  for (const f of await filesUnder(dir)) text += await Deno.readTextFile(f);
  return text;
}

/** Parks the payment instance, resumes it to completion, and hands both steps to `sinks`. */
async function runPayment(sinks: AuditSinks, tenant: string, instanceId: string) {
  const plan = await paymentPlan();
  const parked = await parkedPayment(plan, instanceId);
  const deploymentId = "dep-1";
  sinks.committed({
    tenant,
    instanceId,
    deploymentId,
    processId: "pay",
    plan,
    state: parked.state,
    events: parked.effects.audit,
  });
  const wait = [...parked.state.waits.values()][0];
  const done = await step(plan, parked.state, {
    type: "message",
    wait: wait.id,
    message: { payload: { ok: true } },
  }, { clock: new ManualClock(Date.UTC(2026, 11, 2, 0, 5)) });
  assert.equal(done.state?.status, "COMPLETED");
  sinks.committed({
    tenant,
    instanceId,
    deploymentId,
    processId: "pay",
    plan,
    state: done.state!,
    events: done.effects.audit,
  });
  await sinks.flush();
  return plan;
}

Deno.test("the JSONL sink writes one directory per tenant and target, one file per day and replica", async () => {
  const dir = await Deno.makeTempDir();
  const sink = new JsonlAuditSink({ dir, maxFileBytes: 1 << 20, replicaId: "r/1", logger: quiet });
  sink.write("acme", [record("acme", "i-1", 1, "2026-12-01T23:59:59.000Z", "instance.started")]);
  sink.write("acme", [record("acme", "i-1", 2, "2026-12-02T00:00:01.000Z", "instance.completed")]);
  sink.write("../evil", [
    record("../evil", "i-2", 1, "2026-12-02T00:00:01.000Z", "instance.started"),
  ]);
  sink.write(
    "acme",
    [record("acme", "i-3", 1, "2026-12-02T00:00:02.000Z", "instance.started")],
    "payments",
  );
  await sink.close();
  const files = (await filesUnder(dir)).map((f) => f.slice(dir.length + 1));
  assert.deepEqual(files, [
    "%2E%2E%2Fevil/2026-12-02.r%2F1.0001.jsonl",
    "acme/2026-12-01.r%2F1.0001.jsonl",
    "acme/2026-12-02.r%2F1.0001.jsonl",
    "acme/payments/2026-12-02.r%2F1.0001.jsonl",
  ]);
  const line = (await Deno.readTextFile(`${dir}/acme/2026-12-02.r%2F1.0001.jsonl`)).trimEnd();
  assert.deepEqual(
    JSON.parse(line),
    record("acme", "i-1", 2, "2026-12-02T00:00:01.000Z", "instance.completed"),
  );
  assert.equal(pathSegment(""), "%");
  assert.equal(pathSegment("a.b c"), "a%2Eb%20c");
});

Deno.test("a file is rotated before it passes the size limit, and a restarted sink continues the numbering", async () => {
  const dir = await Deno.makeTempDir();
  const one = record("t", "i-1", 1, "2026-12-02T00:00:00.000Z", "node.entered");
  const lineBytes = JSON.stringify(one).length + 1;
  const first = new JsonlAuditSink({ dir, maxFileBytes: lineBytes * 2, replicaId: "r1" });
  for (let seq = 1; seq <= 5; seq++) first.write("t", [{ ...one, seq }]);
  await first.close();
  const names = async () => (await filesUnder(`${dir}/t`)).map((f) => f.split("/").pop());
  assert.deepEqual(await names(), [
    "2026-12-02.r1.0001.jsonl",
    "2026-12-02.r1.0002.jsonl",
    "2026-12-02.r1.0003.jsonl",
  ]);
  const second = new JsonlAuditSink({ dir, maxFileBytes: lineBytes * 2, replicaId: "r1" });
  second.write("t", [{ ...one, seq: 6 }, { ...one, seq: 7 }]);
  await second.close();
  assert.deepEqual(
    (await names()).length,
    4,
    "the last file was full: the restart opened the next",
  );
  const replay = await replayInstance(dir, { instanceId: "i-1" });
  assert.deepEqual(replay.records.map((r) => r.seq), [1, 2, 3, 4, 5, 6, 7]);
});

Deno.test("a write that fails stays queued, is reported, and lands once the directory is writable", async () => {
  const root = await Deno.makeTempDir();
  const dir = `${root}/audit`;
  await Deno.writeTextFile(dir, "a file where the directory should be");
  const logged: string[] = [];
  const logger = createLogger("audit", { filter: "error", write: (line) => logged.push(line) });
  const sink = new JsonlAuditSink({ dir, maxFileBytes: 1 << 20, replicaId: "r1", logger });
  sink.write("t", [record("t", "i-1", 1, "2026-12-02T00:00:00.000Z", "instance.started")]);
  await sink.flush();
  assert.ok(logged.length > 0);
  for (const line of logged) assert.match(line, /SUTRA\.AUDIT\.SINK_FAILED/);
  await Deno.remove(dir);
  sink.write("t", [record("t", "i-1", 2, "2026-12-02T00:00:00.000Z", "instance.completed")]);
  await sink.close();
  const replay = await replayInstance(dir, { instanceId: "i-1" });
  assert.deepEqual(replay.records.map((r) => r.seq), [1, 2]);
});

Deno.test("audit → JSONL → replay: an instance's events in order, masked, across steps and tenants", async () => {
  const dir = await Deno.makeTempDir();
  const jsonl = new JsonlAuditSink({ dir, maxFileBytes: 1 << 20, replicaId: "r1", logger: quiet });
  const sinks = new AuditSinks({ sql: false, jsonl, logger: quiet });
  await runPayment(sinks, "acme", "i-1");
  await runPayment(sinks, "globex", "i-1"); // the same id under another tenant
  await sinks.close();

  const all = await textUnder(dir);
  for (const needle of [CARD, SECRET, "4111"]) assert.equal(all.includes(needle), false, needle);

  const acme = await replayInstance(dir, { instanceId: "i-1", tenant: "acme" });
  assert.deepEqual(acme.records.map((r) => r.type), [
    "instance.started",
    "node.entered",
    "node.left",
    "flow.taken",
    "node.entered",
    "node.left",
    "flow.taken",
    "node.entered",
    "instance.suspended",
    "instance.resumed",
    "node.left",
    "flow.taken",
    "node.entered",
    "node.left",
    "instance.completed",
  ]);
  assert.deepEqual(acme.records.map((r) => r.seq), acme.records.map((_, i) => i + 1));
  assert.ok(acme.records.every((r) => r.tenant === "acme"));
  const started = acme.records[0];
  assert.deepEqual(started.variables, {
    amount: "25",
    payload: '{card: {number: "***", cvv: "***"}, amount: 12.5, reference: "R-1"}',
    secret: "***",
  });
  assert.equal(acme.records[1].variables, undefined, "only lifecycle events carry variables");

  const untilSuspended = await replayInstance(dir, {
    instanceId: "i-1",
    tenant: "acme",
    until: parseUntil("INSTANCE_SUSPENDED"),
  });
  assert.equal(untilSuspended.records.at(-1)?.type, "instance.suspended");
  const untilInstant = await replayInstance(dir, {
    instanceId: "i-1",
    tenant: "acme",
    until: parseUntil("2026-12-02T00:01:00Z"),
  });
  assert.equal(untilInstant.records.length, 9, "the resume at 00:05 is after the instant");
  const both = await replayInstance(dir, { instanceId: "i-1" });
  assert.equal(both.records.length, 15, "without --tenant a sequence number is printed once");
});

Deno.test("q:audit sink and target route a process's events", async () => {
  const dir = await Deno.makeTempDir();
  const logged: string[] = [];
  const logger = createLogger("audit", { filter: "warn", write: (line) => logged.push(line) });
  const jsonl = new JsonlAuditSink({ dir, maxFileBytes: 1 << 20, replicaId: "r1" });
  const sinks = new AuditSinks({ sql: true, jsonl, logger });
  const toJsonl = await paymentPlan(`sink="jsonl" target="payments" capture="lifecycle"`);
  assert.deepEqual(sinks.routeOf(toJsonl, "pay"), { sql: false, jsonl: true, target: "payments" });
  assert.equal(sinks.writesSql(toJsonl, "pay"), false);
  const toSql = await paymentPlan(`sink="sql"`);
  assert.deepEqual(sinks.routeOf(toSql, "pay"), { sql: true, jsonl: false });
  const both = await paymentPlan(`capture="nodes"`);
  assert.deepEqual(sinks.routeOf(both, "pay"), { sql: true, jsonl: true });
  const typo = await paymentPlan(`sink="elastic"`);
  assert.deepEqual(sinks.routeOf(typo, "pay"), { sql: true, jsonl: true });
  sinks.routeOf(typo, "pay");
  assert.equal(logged.length, 1, "warned once per process");
  assert.match(logged[0], /SUTRA\.AUDIT\.SINK_UNKNOWN/);

  const parked = await parkedPayment(toJsonl, "i-7");
  sinks.committed({
    tenant: "acme",
    instanceId: "i-7",
    deploymentId: "d",
    processId: "pay",
    plan: toJsonl,
    state: parked.state,
    events: parked.effects.audit,
  });
  await sinks.close();
  const files = await filesUnder(`${dir}/acme/payments`);
  assert.equal(files.length, 1);
  const types = (await Deno.readTextFile(files[0])).trimEnd().split("\n").map((l) =>
    JSON.parse(l).type
  );
  assert.deepEqual(types, ["instance.started", "instance.suspended"]);
});

Deno.test("sutra audit-replay prints one instance's events; bad input is a diagnostic and exit 1", async () => {
  const dir = await Deno.makeTempDir();
  const jsonl = new JsonlAuditSink({ dir, maxFileBytes: 1 << 20, replicaId: "r1", logger: quiet });
  await runPayment(new AuditSinks({ sql: false, jsonl }), "acme", "i-1");
  await jsonl.close();
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => err.push(t),
    env: () => undefined,
  };

  const replay = (...args: string[]) => auditReplayCommand.run(args, io);
  assert.equal(
    await replay("i-1", "--from-jsonl", dir, "--until", "instance.suspended"),
    0,
    err.join(""),
  );
  const lines = out.join("").trimEnd().split("\n");
  assert.equal(lines.length, 9);
  assert.match(lines[0], /^ {3}1 {2}2026-12-02T00:00:00\.000Z {2}instance\.started {2}variables=/);
  assert.match(lines[1], /node\.entered {2}node=Start$/);
  assert.equal(out.join("").includes(CARD), false);

  out.length = 0;
  assert.equal(
    await auditReplayCommand.run([
      "i-1",
      "--from-jsonl",
      dir,
      "--format",
      "json",
      "--tenant",
      "acme",
    ], io),
    0,
  );
  assert.equal(out.join("").trimEnd().split("\n").map((l) => JSON.parse(l)).length, 15);

  const invalid = (e: unknown) =>
    e instanceof DiagnosticError && e.diagnostics[0].code === "SUTRA.AUDIT.REPLAY_INPUT_INVALID";
  await assert.rejects(replay("i-1", "--from-jsonl", `${dir}/missing`), invalid);
  await assert.rejects(replay("i-1", "--from-jsonl", dir, "--until", "2026-12-02T00:00"), invalid);
  err.length = 0;
  assert.equal(await replay("i-404", "--from-jsonl", dir), 1);
  assert.match(err.join(""), /no audit events of instance 'i-404'/);
  await assert.rejects(replay("i-1"), {
    name: "UsageError",
    message: /--from-jsonl PATH is required/,
  });
});
