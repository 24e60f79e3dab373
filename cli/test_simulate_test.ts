import assert from "node:assert/strict";
import { captureIo } from "../tests/support/cli_io.ts";
import { runCli } from "./main.ts";

const root = new URL("..", import.meta.url).pathname;
const EXAMPLE = `${root}examples/timer-reminder`;

async function simulate(...args: string[]) {
  const c = captureIo();
  const code = await runCli(["test", "simulate", ...args], { io: c.io, programName: "sutra" });
  return { code, out: c.out(), err: c.err() };
}

async function withDataDir(fn: (url: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-simulate-" });
  try {
    await fn(`file://${dir}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("test simulate --until-quiescent settles the PT24H example and prints one JSON summary", async () => {
  const r = await simulate(
    "--deployments",
    EXAMPLE,
    "--datasource",
    "memory://",
    "--until-quiescent",
  );
  assert.equal(r.code, 0, r.err);
  const summary = JSON.parse(r.out);
  assert.equal(summary.mode, "until-quiescent");
  assert.equal(summary.quiescent, true);
  assert.equal(summary.timedOut, false);
  assert.equal(summary.preExistingInstances, 0);
  // Two schedule slots twelve hours apart, each instance waiting a day.
  assert.equal(summary.virtualSecondsAdvanced, 48 * 3600);
  assert.equal(Date.parse(summary.virtualEnd) - Date.parse(summary.virtualStart), 48 * 3_600_000);
  assert.deepEqual(
    [
      summary.instancesStarted,
      summary.instancesCompleted,
      summary.instancesFailed,
      summary.instancesTerminated,
      summary.instancesLive,
      summary.timersFired,
      summary.schedulesFired,
    ],
    [2, 2, 0, 0, 0, 2, 2],
  );
  assert.equal(typeof summary.wallSeconds, "number");
  assert.match(r.err, /deployed .*demo--timer-reminder--1\.0\.0/);
});

Deno.test("test simulate --advance stops at the target instant with the rest still armed", async () => {
  const r = await simulate(
    "--deployments",
    EXAMPLE,
    "--datasource",
    "memory://",
    "--advance",
    "PT13H",
  );
  assert.equal(r.code, 0, r.err);
  const summary = JSON.parse(r.out);
  assert.equal(summary.mode, "advance");
  assert.equal(summary.virtualSecondsAdvanced, 13 * 3600);
  assert.equal(summary.quiescent, false);
  assert.deepEqual(
    [summary.instancesStarted, summary.instancesLive, summary.schedulesFired, summary.timersFired],
    [1, 1, 1, 0],
  );
});

Deno.test("test simulate refuses a database that already holds instances unless allowed", async () => {
  await withDataDir(async (url) => {
    const seeded = await simulate(
      "--deployments",
      EXAMPLE,
      "--datasource",
      url,
      "--advance",
      "PT13H",
    );
    assert.equal(seeded.code, 0, seeded.err);

    const refused = await simulate(
      "--deployments",
      EXAMPLE,
      "--datasource",
      url,
      "--until-quiescent",
    );
    assert.equal(refused.code, 2);
    assert.equal(refused.out, "");
    assert.match(refused.err, /SUTRA\.SIMULATE\.EXISTING_DATA/);

    const allowed = await simulate(
      "--deployments",
      EXAMPLE,
      "--datasource",
      url,
      "--until-quiescent",
      "--allow-existing-data",
    );
    assert.equal(allowed.code, 0, allowed.err);
    const summary = JSON.parse(allowed.out);
    assert.equal(summary.allowExistingData, true);
    assert.equal(summary.preExistingInstances, 1);
    assert.equal(summary.quiescent, true);
    // The seeded instance finishes too, but only the second slot's is new.
    assert.equal(summary.instancesStarted, 1);
  });
});

Deno.test("test simulate: a FAILED instance is not quiescent, so the run times out", async () => {
  const r = await simulate(
    "--deployments",
    `${root}tests/fixtures/runtime/timer_failing`,
    "--datasource",
    "memory://",
    "--until-quiescent",
    "--timeout",
    "PT2S",
  );
  assert.equal(r.code, 1, r.err);
  const summary = JSON.parse(r.out);
  assert.equal(summary.timedOut, true);
  assert.equal(summary.quiescent, false);
  assert.equal(summary.instancesFailed, 1);
  assert.equal(summary.instancesLive, 0);
});

Deno.test("test simulate usage errors exit 2 before anything boots", async () => {
  for (
    const args of [
      ["--deployments", EXAMPLE, "--until-quiescent"],
      ["--datasource", "memory://", "--until-quiescent"],
      ["--deployments", EXAMPLE, "--datasource", "memory://"],
      [
        "--deployments",
        EXAMPLE,
        "--datasource",
        "memory://",
        "--until-quiescent",
        "--advance",
        "PT1H",
      ],
      ["--deployments", EXAMPLE, "--datasource", "memory://", "--advance", "one day"],
    ]
  ) {
    const r = await simulate(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.out, "");
  }
  const c = captureIo();
  assert.equal(await runCli(["test", "nothing"], { io: c.io, programName: "sutra" }), 2);
});

Deno.test("test simulate: a directory without packages is a diagnostic", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-simulate-empty-" });
  try {
    const r = await simulate(
      "--deployments",
      dir,
      "--datasource",
      "memory://",
      "--until-quiescent",
    );
    assert.equal(r.code, 1);
    assert.match(r.err, /SUTRA\.SIMULATE\.NO_DEPLOYMENTS/);
    assert.equal(r.out, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
