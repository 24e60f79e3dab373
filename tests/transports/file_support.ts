/**
 * Helpers for the file-transport tests: the `file_channel` fixture package
 * sealed with its channel pointed at a temporary inbox and its `q:send` at
 * a temporary outbox directory, small directory readers, and the scenario
 * of an engine process killed in the middle of a directory.
 *
 * @module
 */
import "../../io/codecs/mod.ts";
import "../../io/transports/mod.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnEngine } from "../support/engine_process.ts";
import { sealFixture } from "../support/fixture_package.ts";

/** A test's directories: the watched inbox (with its folders) and the sink's outbox. */
export interface FileDirs {
  readonly root: string;
  readonly inbox: string;
  readonly outbox: string;
}

/** Fresh temporary directories for one test. */
export async function fileDirs(): Promise<FileDirs> {
  const root = await Deno.makeTempDir({ prefix: "sutra-file-" });
  const inbox = join(root, "in");
  const outbox = join(root, "out");
  await Deno.mkdir(inbox);
  await Deno.mkdir(outbox);
  return { root, inbox, outbox };
}

/** The fixture package `fixture` (under tests/fixtures/runtime) sealed for `dirs`. */
export function filePackage(dirs: FileDirs, fixture = "file_channel"): Promise<Uint8Array> {
  return sealFixture(fixture, { "@IN@": dirs.inbox, "@OUT@": dirs.outbox });
}

/** The names of the plain files in `dir` (none when it does not exist), sorted. */
export async function filesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) if (e.isFile) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/** The files a sink has finished writing in `dir`: its dot-named temporaries are still in flight. */
export async function emitted(dir: string): Promise<string[]> {
  return (await filesIn(dir)).filter((n) => !n.startsWith("."));
}

/** The message files left in every claim folder under `processing`. */
export async function claimed(processing: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(processing)) {
    if (e.isDirectory) {
      names.push(...(await filesIn(join(processing, e.name))).filter((n) => !n.startsWith(".")));
    }
  }
  return names.sort();
}

/** Drops a file into `dir` the way the contract asks: written under a `.tmp` name, then renamed. */
export async function drop(dir: string, name: string, body: unknown): Promise<void> {
  const temp = join(dir, `${name}.tmp`);
  await Deno.writeTextFile(temp, typeof body === "string" ? body : JSON.stringify(body));
  await Deno.rename(temp, join(dir, name));
}

/** Options for {@link killMidDirectory}. */
export interface KillMidDirectoryOptions {
  /** The engine processes' settings (their database among them). */
  readonly env: Readonly<Record<string, string>>;
  /** How many files to drop. */
  readonly count: number;
  /**
   * The number of instances the engines left, asked once the second has
   * stopped; `cwd` is the engines' working directory (where an embedded
   * database lives).
   */
  readonly instances: (cwd: string) => Promise<number>;
}

/**
 * A real engine process killed with SIGKILL in the middle of a directory of
 * `count` files, with files committed but not yet moved; then a second
 * engine on the same directory, working directory and database. Asserts
 * that every file's effect (one instance, one emitted file) happened
 * exactly once and nothing is left claimed, failed or unread.
 */
export async function killMidDirectory(o: KillMidDirectoryOptions): Promise<void> {
  const env = {
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    SUTRA_OUTBOX_POLL_INTERVAL: "PT0.1S",
    SUTRA_OUTBOX_CLAIM_TIMEOUT: "PT1S",
    ...o.env,
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
    for (let i = 0; i < o.count; i++) {
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
      await until("every file is done", async () => (await filesIn(done)).length === o.count);
      await until("every emission is written", async () => {
        return (await emitted(dirs.outbox)).length >= o.count;
      });
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
    // One emitted file per instance, named by its instance: a file run twice would add one.
    assert.equal((await emitted(dirs.outbox)).length, o.count);
    assert.equal(await o.instances(cwd), o.count);
    assert.deepEqual(await claimed(join(dirs.inbox, "processing")), []);
    assert.deepEqual(await filesIn(join(dirs.inbox, "failed")), []);
    assert.deepEqual(await filesIn(dirs.inbox), []);
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}
