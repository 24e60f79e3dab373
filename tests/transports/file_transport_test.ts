/**
 * The `file` transport end to end, on real directories and a real engine:
 * a dropped file runs once and moves to done/; a file the codec cannot read
 * moves to failed/ with its diagnostics beside it; names still being
 * written are never picked; two engines on one directory never take the
 * same file; a file whose step committed but which never moved (the state
 * a crash leaves) is taken back by the next engine and answered by inbox
 * dedup, so its effect happens once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, type BootOptions, until } from "../runtime/support.ts";
import {
  claimed,
  drop,
  emitted,
  type FileDirs,
  fileDirs,
  filePackage,
  filesIn,
} from "./file_support.ts";

const FAST = { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" };

async function withFileEngine(
  dirs: FileDirs,
  run: (engine: RunningEngine) => Promise<void>,
  options: BootOptions = {},
): Promise<void> {
  const engine = await bootEngine({ ...options, env: { ...FAST, ...options.env } });
  try {
    await engine.deployments.deploy(await filePackage(dirs));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

async function instances(engine: RunningEngine): Promise<number> {
  const { rows } = await engine.database.query("select 1 from instances");
  return rows.length;
}

Deno.test("a dropped file runs once, moves to done/ and its q:send lands in the outbox directory", async () => {
  const dirs = await fileDirs();
  try {
    await withFileEngine(dirs, async (engine) => {
      await drop(dirs.inbox, "o-1.json", { orderId: "O-1" });
      await until(async () => (await filesIn(join(dirs.inbox, "done"))).length === 1);
      assert.deepEqual(await filesIn(join(dirs.inbox, "done")), ["o-1.json"]);
      assert.deepEqual(await filesIn(dirs.inbox), []);
      assert.deepEqual(await claimed(join(dirs.inbox, "processing")), []);
      assert.equal(await instances(engine), 1);
      await until(async () => (await emitted(dirs.outbox)).length === 1);
      const [written] = await emitted(dirs.outbox);
      assert.deepEqual(JSON.parse(await Deno.readTextFile(join(dirs.outbox, written))), {
        orderId: "O-1",
        confirmed: true,
      });
    });
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("a file the codec cannot read moves to failed/ with a diagnostics sidecar", async () => {
  const dirs = await fileDirs();
  try {
    await withFileEngine(dirs, async (engine) => {
      await drop(dirs.inbox, "bad.json", "{not json");
      const failed = join(dirs.inbox, "failed");
      await until(async () => (await filesIn(failed)).length === 2);
      assert.deepEqual(await filesIn(failed), ["bad.json", "bad.json.diagnostics.json"]);
      assert.equal(await Deno.readTextFile(join(failed, "bad.json")), "{not json");
      const sidecar = JSON.parse(
        await Deno.readTextFile(join(failed, "bad.json.diagnostics.json")),
      );
      assert.equal(sidecar.file, "bad.json");
      assert.equal(sidecar.channel, "fc-orders");
      assert.equal(sidecar.diagnostics[0].code, "SUTRA.PARSE.JSON.MALFORMED");
      assert.equal(await instances(engine), 0);
      assert.deepEqual(await filesIn(join(dirs.inbox, "done")), []);
    });
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("a file past the payload cap moves to failed/ unread, with the cap named", async () => {
  const dirs = await fileDirs();
  try {
    await withFileEngine(dirs, async (engine) => {
      await drop(dirs.inbox, "big.json", { orderId: "x".repeat(200) });
      const failed = join(dirs.inbox, "failed");
      await until(async () => (await filesIn(failed)).length === 2);
      const sidecar = JSON.parse(
        await Deno.readTextFile(join(failed, "big.json.diagnostics.json")),
      );
      assert.equal(sidecar.diagnostics[0].code, "SUTRA.INBOUND.PAYLOAD_TOO_LARGE");
      assert.equal(sidecar.diagnostics[0].attributes.cap, 64);
      assert.equal(await instances(engine), 0);
    }, { env: { SUTRA_INBOUND_PAYLOAD_CAP_BYTES: "64" } });
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("files still being written (.tmp, .part, dot-files) are never picked", async () => {
  const dirs = await fileDirs();
  try {
    await withFileEngine(dirs, async (engine) => {
      const partial = [".o-2.json", "o-3.json.part", "o-4.json.tmp"];
      for (const name of partial) {
        await Deno.writeTextFile(join(dirs.inbox, name), '{"orderId": "partial"');
      }
      // A complete file dropped after them is picked: the partial ones have been seen and left.
      await drop(dirs.inbox, "o-5.json", { orderId: "O-5" });
      await until(async () => (await filesIn(join(dirs.inbox, "done"))).length === 1);
      assert.deepEqual(await filesIn(dirs.inbox), [...partial].sort());
      assert.deepEqual(await filesIn(join(dirs.inbox, "failed")), []);
      assert.equal(await instances(engine), 1);
      // Finishing the write is the rename that makes it a message.
      await Deno.writeTextFile(join(dirs.inbox, "o-4.json.tmp"), '{"orderId": "O-4"}');
      await Deno.rename(join(dirs.inbox, "o-4.json.tmp"), join(dirs.inbox, "o-4.json"));
      await until(async () => (await filesIn(join(dirs.inbox, "done"))).length === 2);
      assert.equal(await instances(engine), 2);
    });
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("two engines on one directory never process the same file", async () => {
  const dirs = await fileDirs();
  const count = 30;
  try {
    await withFileEngine(dirs, (first) =>
      withFileEngine(dirs, async (second) => {
        for (let i = 0; i < count; i++) {
          await drop(dirs.inbox, `o-${String(i).padStart(2, "0")}.json`, { orderId: `O-${i}` });
        }
        await until(async () => (await filesIn(join(dirs.inbox, "done"))).length === count);
        await until(async () => (await emitted(dirs.outbox)).length >= count);
        // Each engine has its own database: a file run by both would count twice here.
        assert.equal((await instances(first)) + (await instances(second)), count);
        assert.equal((await emitted(dirs.outbox)).length, count);
        assert.deepEqual(await claimed(join(dirs.inbox, "processing")), []);
      }));
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("a file committed but never moved is taken back by the next engine and runs once", async () => {
  const dirs = await fileDirs();
  const db = `file://${join(dirs.root, "db")}`;
  const done = join(dirs.inbox, "done");
  try {
    await withFileEngine(dirs, async (engine) => {
      await until(async () => (await Deno.stat(done).catch(() => undefined))?.isDirectory === true);
      // done/ turned into a plain file: every move fails after the step commits, exactly the
      // state a crash between the commit and the move leaves behind.
      await Deno.remove(done);
      await Deno.writeTextFile(done, "");
      await drop(dirs.inbox, "o-1.json", { orderId: "O-1" });
      await until(async () => (await emitted(dirs.outbox)).length === 1);
      assert.equal(await instances(engine), 1);
      assert.deepEqual(await claimed(join(dirs.inbox, "processing")), ["o-1.json"]);
    }, { url: db });
    await Deno.remove(done);
    // The first engine is gone; its claim folder is nobody's: the next engine takes it back.
    await withFileEngine(dirs, async (engine) => {
      await until(async () => (await filesIn(done)).length === 1);
      assert.deepEqual(await filesIn(done), ["o-1.json"]);
      assert.equal(await instances(engine), 1, "inbox dedup answered the second delivery");
      assert.deepEqual(await claimed(join(dirs.inbox, "processing")), []);
      assert.equal((await emitted(dirs.outbox)).length, 1);
    }, { url: db });
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});
