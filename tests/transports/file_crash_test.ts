/**
 * A real engine process killed with SIGKILL in the middle of a directory of
 * files, with files committed but not yet moved: the next engine on the
 * same directory and database takes the killed one's claimed files back,
 * and every file's effect (one instance, one emitted file) happens exactly
 * once — inbox dedup answers the files whose step had committed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnEngine } from "../support/engine_process.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { claimed, drop, emitted, fileDirs, filePackage, filesIn } from "./file_support.ts";

const COUNT = 150;
const ENV = {
  SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  SUTRA_OUTBOX_POLL_INTERVAL: "PT0.1S",
  SUTRA_OUTBOX_CLAIM_TIMEOUT: "PT1S",
};

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

tier2Test(
  "SIGKILL mid-directory: after a restart every file has run exactly once",
  () =>
    withServerDatabase(async (db, target) => {
      const env = {
        ...ENV,
        SUTRA_DATASOURCE_URL: target.url,
        SUTRA_DATASOURCE_SCHEMA: target.schema,
      };
      const dirs = await fileDirs();
      const done = join(dirs.inbox, "done");
      const cwd = join(dirs.root, "engine");
      await Deno.mkdir(cwd);
      try {
        const first = spawnEngine({ cwd, env });
        const port = await first.started;
        const deployed = await fetch(`http://127.0.0.1:${port}/admin/deployments`, {
          method: "POST",
          body: (await filePackage(dirs)).slice(),
        });
        assert.equal(deployed.status, 200, await deployed.text());
        await until(
          "the channel is open",
          async () => (await Deno.stat(done).catch(() => null)) !== null,
        );
        // done/ becomes a plain file: every file whose step commits stays claimed, so the kill
        // surely lands between a commit and its move.
        await Deno.remove(done);
        await Deno.writeTextFile(done, "");
        for (let i = 0; i < COUNT; i++) {
          await drop(dirs.inbox, `o-${String(i).padStart(3, "0")}.json`, { orderId: `O-${i}` });
        }
        await until("some files have run", async () => (await emitted(dirs.outbox)).length >= 5);
        first.kill("SIGKILL");
        await first.exited;
        const stuck = await claimed(join(dirs.inbox, "processing"));
        assert.ok(stuck.length >= 5, `committed files wait in the dead engine's claim folder`);
        await Deno.remove(done);

        const second = spawnEngine({ cwd, env });
        try {
          await second.started;
          await until("every file is done", async () => (await filesIn(done)).length === COUNT);
          await until("every emission is written", async () => {
            return (await emitted(dirs.outbox)).length >= COUNT;
          });
          // One emitted file per instance, named by its instance: a file run twice would add one.
          assert.equal((await emitted(dirs.outbox)).length, COUNT);
          const { rows } = await db.query("select 1 from instances");
          assert.equal(rows.length, COUNT);
          assert.deepEqual(await claimed(join(dirs.inbox, "processing")), []);
          assert.deepEqual(await filesIn(join(dirs.inbox, "failed")), []);
          assert.deepEqual(await filesIn(dirs.inbox), []);
        } finally {
          second.kill("SIGTERM");
          await second.exited;
        }
      } finally {
        await Deno.remove(dirs.root, { recursive: true });
      }
    }),
);
