import assert from "node:assert/strict";
import { ManualClock } from "../engine/core/mod.ts";
import type { RunningEngine } from "../engine/runtime/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { advanceTo, deployDir, startOn, T0, withEngine } from "../tests/runtime/timers_support.ts";
import { deployRevision, ORDER } from "../tests/runtime/admin_support.ts";
import { UsageError } from "./command.ts";
import { incidentsCommand } from "./incidents.ts";
import { instancesCommand, variableAssignments } from "./instances.ts";

async function run(engine: RunningEngine, args: string[]) {
  const captured = captureIo({ env: { SUTRA_ENGINE_URL: engine.url } });
  const code = await instancesCommand.run(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

/** An engine with the order fixture, one FAILED order (O-1) and one waiting (O-2). */
async function withOrders(
  fn: (engine: RunningEngine, ids: { failed: string; waiting: string }) => Promise<void>,
): Promise<void> {
  const clock = new ManualClock(T0);
  await withEngine({ target: { url: "memory://" }, clock }, async (engine) => {
    await deployDir(engine, ORDER);
    const failed = await startOn(engine, "ord-start", { orderId: "O-1" });
    await advanceTo(engine, clock, T0 + 5_000);
    const waiting = await startOn(engine, "ord-start", { orderId: "O-2" });
    await fn(engine, { failed, waiting });
  });
}

Deno.test("sutra instances list, show, set-variable, retry and cancel; sutra incidents", () =>
  withOrders(async (engine, { failed, waiting }) => {
    const listed = await run(engine, ["list"]);
    assert.equal(listed.code, 0, listed.err);
    const lines = listed.out.trimEnd().split("\n");
    assert.match(lines[0], /^INSTANCE\s+STATUS\s+PROCESS\s+DEPLOYMENT\s+STARTED\s+FAILURE$/);
    assert.match(lines[1], new RegExp(`^${waiting}\\s+WAITING\\s+order\\s`));
    assert.match(
      lines[2],
      new RegExp(`^${failed}\\s+FAILED\\s.*SUTRA.RUNTIME.RETRY.EXHAUSTED at Charge$`),
    );

    const paged = await run(engine, ["list", "--limit", "1"]);
    assert.match(paged.out, /^more: --cursor \S+$/m);
    const all = await run(engine, ["list", "--limit", "1", "--all", "--format", "json"]);
    assert.deepEqual(
      (JSON.parse(all.out).instances as { instanceId: string }[]).map((i) => i.instanceId),
      [waiting, failed],
    );
    const onlyFailed = await run(engine, ["list", "--status", "FAILED", "--format", "json"]);
    assert.equal(JSON.parse(onlyFailed.out).instances.length, 1);
    const bad = await run(engine, ["list", "--status", "sideways"]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /SUTRA\.ADMIN\.QUERY\.INVALID/);

    const incidents = captureIo({ env: { SUTRA_ENGINE_URL: engine.url } });
    assert.equal(await incidentsCommand.run([], incidents.io), 0);
    assert.match(
      incidents.out(),
      new RegExp(`instance\\s+SUTRA.RUNTIME.RETRY.EXHAUSTED\\s+${failed}\\s+Charge`),
    );

    const set = await run(engine, ["set-variable", failed, "amount=12.5", "note=hello"]);
    assert.equal(set.out, `${failed}: set amount, note\n`, set.err);
    const wrong = await run(engine, ["set-variable", failed, "amount=twelve"]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /SUTRA\.ADMIN\.VARIABLES\.TYPE_MISMATCH/);
    const shown = await run(engine, ["show", failed]);
    assert.match(shown.out, /^status\s+FAILED$/m);
    assert.match(shown.out, /^failure\s+SUTRA\.RUNTIME\.RETRY\.EXHAUSTED at Charge$/m);
    assert.match(shown.out, /^ {2}amount = 12\.5$/m);
    assert.match(shown.out, /^ {2}note = "hello"$/m);
    assert.match(shown.out, /^ {2}orderId=O-1 \(retired\)$/m);

    assert.equal((await run(engine, ["retry", failed])).out, `${failed}: retrying Charge\n`);
    const again = await run(engine, ["retry", waiting, "--format", "json"]);
    assert.equal(again.code, 1);
    assert.equal(JSON.parse(again.out).diagnostics[0].code, "SUTRA.ADMIN.RETRY.NOT_FAILED");
    assert.equal((await run(engine, ["cancel", waiting])).out, `${waiting}: TERMINATED\n`);
  }));

Deno.test("sutra instances migrate: dry run, real run and a batch, with exit codes scripts key on", () =>
  withOrders(async (engine, { failed, waiting }) => {
    const source = String(
      (await (await fetch(`${engine.url}/sutra/instances/${failed}`)).json()).deploymentId,
    );
    // A new revision: the same package with a longer charge deadline.
    const target = await deployRevision(
      engine,
      ORDER,
      (bpmn) => bpmn.replace('duration="PT5S"', 'duration="PT1H"'),
    );

    const dry = await run(engine, [
      "migrate",
      failed,
      "--target",
      target,
      "--resume",
      "--dry-run",
    ]);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, new RegExp(`^${failed}: VALID$`, "m"));
    assert.match(dry.out, /SUTRA\.ADMIN\.MIGRATE\.DRY_RUN/);
    const refused = await run(engine, ["migrate", waiting, "--target", target, "--resume"]);
    assert.equal(refused.code, 1);
    assert.match(refused.out, /REFUSED[^]*SUTRA\.ADMIN\.MIGRATE\.RESUME_NOT_FAILED/);
    const batch = await run(engine, [
      "migrate",
      "--source",
      source,
      "--target",
      target,
      "--status",
      "failed",
      "--resume",
    ]);
    assert.equal(batch.code, 0, batch.out + batch.err);
    assert.match(batch.out, new RegExp(`^${failed}: MIGRATED \\(resumed\\)$`, "m"));
    assert.match(batch.out, /^MIGRATED 1$/m);
    const rest = await run(engine, [
      "migrate",
      "--source",
      source,
      "--target",
      target,
      "--format",
      "json",
    ]);
    assert.equal(rest.code, 0, rest.out);
    assert.deepEqual(JSON.parse(rest.out).totals.MIGRATED, 1);
  }));

Deno.test("sutra instances refuses bad usage before calling the engine", async () => {
  const io = captureIo().io;
  await assert.rejects(() => instancesCommand.run([], io), UsageError);
  await assert.rejects(() => instancesCommand.run(["explode"], io), UsageError);
  await assert.rejects(() => instancesCommand.run(["show"], io), /exactly one instance ID/);
  await assert.rejects(() => instancesCommand.run(["migrate", "x"], io), /--target/);
  await assert.rejects(
    () => instancesCommand.run(["migrate", "x", "--target", "t", "--status", "FAILED"], io),
    /selects a batch/,
  );
  await assert.rejects(
    () => instancesCommand.run(["set-variable", "x", "novalue"], io),
    /NAME=VALUE/,
  );
  await assert.rejects(
    () => instancesCommand.run(["list", "--engine-url", "ftp://x"], io),
    /http or https/,
  );
  await assert.rejects(
    () => instancesCommand.run(["list", "--engine-url", "http://127.0.0.1:99999"], io),
    /port 99999 is out of range/,
  );
  await assert.rejects(
    () => instancesCommand.run(["list", "--engine-url", "not a url"], io),
    /'not a url' cannot be used: it is not a URL/,
  );
  assert.deepEqual(variableAssignments(["a=1", "b=text", 'c="1"', 'd={"@d":"2026-03-01"}']), {
    a: 1,
    b: "text",
    c: "1",
    d: { "@d": "2026-03-01" },
  });
});

Deno.test("sutra instances and incidents print the engine's refusal and exit 1 when the key is wrong", async () => {
  const clock = new ManualClock(T0);
  await withEngine({
    target: { url: "memory://" },
    clock,
    env: { SUTRA_ADMIN_AUTH_API_KEY: "env:ADMIN_KEY", ADMIN_KEY: "right" },
  }, async (engine) => {
    const env = { SUTRA_ENGINE_URL: engine.url, SUTRA_ADMIN_API_KEY: "wrong" };
    const listed = captureIo({ env });
    assert.equal(await instancesCommand.run(["list"], listed.io), 1);
    assert.match(listed.err(), /the engine refused \(401\)[^]*SUTRA\.ADMIN\.AUTH\.INVALID/);
    const incidents = captureIo({ env: { ...env, SUTRA_ADMIN_API_KEY: "right" } });
    assert.equal(await incidentsCommand.run(["--format", "json"], incidents.io), 0);
    assert.deepEqual(JSON.parse(incidents.out()), { incidents: [] });
    // A kind the engine does not know is the caller's mistake, found before asking it.
    await assert.rejects(
      () => incidentsCommand.run(["--kind", "bogus"], captureIo({ env }).io),
      /--kind must be one of instance, delivery, external-task, store-write, not 'bogus'/,
    );
  });
});
