import assert from "node:assert/strict";
import { join } from "node:path";
import { transports } from "../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { sealDir } from "../tests/runtime/support.ts";
import { eachCoverageTarget, openCoverageStore } from "../tests/coverage/_support.ts";
import { tier2Test, withServerDatabase } from "../tests/support/test_database.ts";
import { defaultResolveContext } from "../engine/core/secrets.ts";
import { coverageStoreProviders } from "../engine/runtime/coverage/mod.ts";
import { UsageError } from "./command.ts";
import { coverageCommand } from "./coverage.ts";

const command = coverageCommand({ transports });
const GATE = new URL("../tests/coverage/fixtures/gate", import.meta.url).pathname;
const HANDOFF = new URL("../tests/fixtures/runtime/local_handoff", import.meta.url).pathname;

async function run(args: string[], env: Record<string, string> = {}) {
  const captured = captureIo({ env });
  const code = await command.run(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

async function withCopy(from: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sutra_coverage_cli_" });
  try {
    await new Deno.Command("cp", { args: ["-r", `${from}/.`, dir] }).output();
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("check: a model whose declarations still hold is clean", async () => {
  const r = await run(["check", join(GATE, "bpmn/decide.bpmn")]);
  assert.equal(r.code, 0);
  assert.equal(r.out, "coverage check: 0 error(s), 0 note(s)\n");
});

Deno.test("check: a flow removed from the model but still declared is drift (exit 1)", async () => {
  await withCopy(GATE, async (dir) => {
    const file = join(dir, "bpmn/decide.bpmn");
    const text = await Deno.readTextFile(file);
    // The reject branch is reworked: its last flow gets a new id, the declaration is left behind.
    await Deno.writeTextFile(
      file,
      text.replace('id="Flow_RejectEnd"', 'id="Flow_RejectDone"'),
    );
    const r = await run(["check", file, "--format", "json"]);
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out);
    assert.deepEqual(
      report.errors.map((d: { code: string }) => d.code),
      ["SUTRA.CONFIG.BPMN.COVERAGE_FLOW_UNKNOWN"],
    );
    assert.match(report.errors[0].message, /Flow_RejectEnd/);
  });
});

Deno.test("check: a route no declaration tracks is a note, not an error", async () => {
  await withCopy(GATE, async (dir) => {
    const file = join(dir, "bpmn/decide.bpmn");
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, text.replace(/\n\s*<q:coverage path="reject"[^>]*\/>/, ""));
    const r = await run(["check", file]);
    assert.equal(r.code, 0);
    assert.equal(
      r.out,
      "coverage check: 0 error(s), 1 note(s)\n" +
        "  note: process 'decide': no declared path tracks Flow_Reject Flow_RejectEnd\n",
    );
  });
});

eachCoverageTarget(
  "check --archive: the gate exits non-zero below the threshold; reset clears",
  async (url) => {
    const dir = await Deno.makeTempDir({ prefix: "sutra_coverage_gate_" });
    try {
      const archive = join(dir, "gate.sutra");
      await Deno.writeFile(archive, await sealDir("tests/coverage/fixtures/gate"));
      const gate = (threshold: string) =>
        run([
          "check",
          "--archive",
          archive,
          "--database-url",
          url,
          "--threshold",
          threshold,
          "--format",
          "json",
        ]);
      // Fresh deployment id per database: a real archive's id is its content hash,
      // so a server target keeps rows of earlier runs — reset first.
      assert.equal((await run(["reset", "--archive", archive, "--database-url", url])).code, 0);
      const none = await gate("100");
      assert.equal(none.code, 1);
      const first = JSON.parse(none.out);
      assert.deepEqual([first.total, first.covered, first.pass], [2, 0, false]);
      assert.equal((await gate("0")).code, 0);

      // Traffic covers accept (written the way the engine writes it).
      const store = await openCoverageStore(url);
      try {
        assert.deepEqual(await store.write(first.deploymentId, { marks: ["accept"] }), ["accept"]);
      } finally {
        await store.close();
      }
      const half = await gate("50");
      assert.equal(half.code, 0);
      assert.deepEqual(JSON.parse(half.out).uncovered, ["reject"]);
      const text = await run(["check", "--archive", archive, "--database-url", url]);
      assert.equal(text.code, 1);
      assert.match(text.out, /total: 2 {2}covered: 1 {2}coveragePercentage: 50\.00%/);
      assert.match(text.out, /uncovered \(1\):\n {4}- reject\n/);
      assert.match(text.out, /threshold: 100\.00% {2}=> {2}FAIL\n$/);

      const reset = await run(["reset", "--archive", archive, "--database-url", url]);
      assert.equal(reset.code, 0);
      assert.match(reset.out, /2 path\(s\) re-seeded covered=false \(1 had been covered\)/);
      assert.equal(JSON.parse((await gate("0")).out).covered, 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
  { reopenable: true },
);

tier2Test(
  "check --archive --schema: reads the store the engine keeps in its schema",
  () =>
    withServerDatabase(async (db, target) => {
      const dir = await Deno.makeTempDir({ prefix: "sutra_coverage_gate_" });
      try {
        const archive = join(dir, "gate.sutra");
        await Deno.writeFile(archive, await sealDir("tests/coverage/fixtures/gate"));
        const gate = async () =>
          JSON.parse(
            (await run([
              "check",
              "--archive",
              archive,
              "--database-url",
              target.url,
              "--schema",
              target.schema,
              "--threshold",
              "0",
              "--format",
              "json",
            ])).out,
          );
        const { deploymentId, covered } = await gate();
        assert.equal(covered, 0);
        // The engine marks accept in its own database, where the store's tables sit in its schema.
        const store = await coverageStoreProviders.get("sql")!.open(
          { name: "coverage", type: "sql", settings: { "url-ref": target.url } },
          { resolve: defaultResolveContext({}), engineDatabase: db },
        );
        try {
          assert.deepEqual(await store.write(deploymentId, { marks: ["accept"] }), ["accept"]);
        } finally {
          await store.close();
        }
        assert.deepEqual((await gate()).uncovered, ["reject"]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
);

Deno.test("check --archive: an unreachable store fails with STORE_MISSING, not 0%", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra_coverage_gate_" });
  try {
    const archive = join(dir, "gate.sutra");
    await Deno.writeFile(archive, await sealDir("tests/coverage/fixtures/gate"));
    await assert.rejects(
      run(["check", "--archive", archive, "--database-url", "postgres://x@127.0.0.1:1/none"]),
      (error: Error & { diagnostics?: { code: string }[] }) => {
        assert.equal(error.diagnostics?.[0].code, "SUTRA.CONFIG.COVERAGE.STORE_MISSING");
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("init: declares the enumerated routes, keeps renamed ones, refuses hand edits", async () => {
  await withCopy(GATE, async (dir) => {
    const file = join(dir, "bpmn/decide.bpmn");
    const original = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, original.replace(/\n\s*<q:coverage [^>]*\/>/g, ""));
    await Deno.remove(join(dir, "datastores.yaml"));

    const first = await run(["init", file, "--process", "decide"]);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /2 path\(s\) declared \(0 kept, 2 new\)/);
    assert.match(first.out, /path path-1: Flow_Accept Flow_AcceptEnd\n/);
    assert.match(first.out, /path path-2: Flow_Reject Flow_RejectEnd\n/);
    assert.match(await Deno.readTextFile(join(dir, "datastores.yaml")), /- name: coverage\n/);
    assert.equal((await run(["check", file])).code, 0);
    // The admin set: both ops as the package's own channels, their processes and templates.
    for (const written of ["bpmn/coverage-report.bpmn", "templates/coverage-reset.json.hbs"]) {
      assert.match(first.out, new RegExp(`created +\\S*${written.replace(".", "\\.")}\n`));
    }
    assert.match(first.out, /updated +\S*channels\.yaml\n/);
    const channels = await Deno.readTextFile(join(dir, "channels.yaml"));
    assert.match(channels, /- name: coverage-report\n[^]*- name: coverage-reset\n/);
    const read = await readPackageDir(dir);
    const sealed = await sealPackage(read.files!, { transports });
    assert.ok(sealed.archive, sealed.diagnostics.map((d) => d.message).join("\n"));

    // The curation step: a rename survives the next init.
    const curated = (await Deno.readTextFile(file)).replace('path="path-1"', 'path="accept"');
    await Deno.writeTextFile(file, curated);
    const second = await run(["init", file, "--format", "json"]);
    assert.equal(second.code, 0);
    const report = JSON.parse(second.out);
    assert.equal(report.kept, 2);
    assert.deepEqual(report.paths.map((p: { path: string }) => p.path), ["accept", "path-2"]);
    assert.equal(await Deno.readTextFile(file), curated);
    // Nothing of the admin set is written twice.
    assert.deepEqual(report.changes, []);
    assert.equal(await Deno.readTextFile(join(dir, "channels.yaml")), channels);

    // A hand-edited declaration that matches no route is not clobbered without --force.
    const edited = curated.replace('flows="Flow_Reject Flow_RejectEnd"', 'flows="Flow_RejectEnd"');
    await Deno.writeTextFile(file, edited);
    await assert.rejects(run(["init", file]), /match no enumerated route/);
    assert.equal(await Deno.readTextFile(file), edited);
    assert.equal((await run(["init", file, "--force"])).code, 0);
    assert.match(await Deno.readTextFile(file), /path="path-1" flows="Flow_Reject Flow_RejectEnd"/);
  });
});

Deno.test("init: a process with more routes than --max-paths is refused", async () => {
  await assert.rejects(
    run(["init", join(GATE, "bpmn/decide.bpmn"), "--max-paths", "1"]),
    /more than 1 routes/,
  );
  await assert.rejects(run(["init", "x.bpmn", "--max-paths", "0"]), UsageError);
});

Deno.test("init: the cross-process scaffold lists adjacency, hops and one starter route", async () => {
  await withCopy(HANDOFF, async (dir) => {
    const file = join(dir, "coverage/e2e.yaml");
    const r = await run(["init", file, "order", "fulfil", "--format", "json"]);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    assert.equal(report.urn, "urn:sutra:coverage:e2e");
    assert.deepEqual(report.hops, [{
      from: "order:HandOff",
      to: "fulfil:FulfilIn",
      channel: "lh-handoff",
      kind: "spawn",
    }]);
    const yaml = await Deno.readTextFile(file);
    assert.match(yaml, /coverages:\n {6}- path: path-1\n {8}segments:\n {10}order: \[/);
    await assert.rejects(run(["init", file, "order", "fulfil"]), /--force/);
    const single = await run(["init", file, "order", "fulfil", "--single", "--force"]);
    assert.match(single.out, /inter-process hops: 0\n/);
  });
});

Deno.test("coverage: an unknown sub-command or a missing argument is a usage error", async () => {
  await assert.rejects(run(["nope"]), UsageError);
  await assert.rejects(run(["check"]), UsageError);
  await assert.rejects(run(["reset"]), UsageError);
  await assert.rejects(run(["check", "--archive", "a", "--threshold", "101"]), UsageError);
});
