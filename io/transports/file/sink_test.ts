import assert from "node:assert/strict";
import { join } from "node:path";
import type { OutboundMessage } from "../../../engine/core/transport.ts";
import { fileSink, sinkDirectory, sinkFileName } from "./sink.ts";

function message(dir: string, body: Uint8Array, key = "i-1:Confirm:1:1"): OutboundMessage {
  return {
    destination: `file://${dir}`,
    headers: {},
    body,
    contentType: "application/json",
    idempotencyKey: key,
    attempt: 1,
  };
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("destinations name a directory: absolute, relative, percent-encoded", () => {
  assert.equal(sinkDirectory("file:///var/out", "/srv"), "/var/out");
  assert.equal(sinkDirectory("file://out/x", "/srv"), "/srv/out/x");
  assert.equal(sinkDirectory("file://localhost/var/out", "/srv"), "/var/out");
  assert.equal(sinkDirectory("file:///var/my%20out", "/srv"), "/var/my out");
  assert.equal(sinkDirectory("file://", "/srv"), undefined);
  assert.equal(sinkDirectory("http://host/x", "/srv"), undefined);
});

Deno.test("a row is one file named by its key; sent again it replaces that file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await fileSink.send(message(dir, new TextEncoder().encode('{"n":1}')));
    const again = await fileSink.send(message(dir, new TextEncoder().encode('{"n":2}')));
    assert.deepEqual([first.outcome, again.outcome], ["delivered", "delivered"]);
    assert.deepEqual(await names(dir), ["i-1_Confirm_1_1.json"]);
    assert.equal(await Deno.readTextFile(join(dir, "i-1_Confirm_1_1.json")), '{"n":2}');
    assert.equal(await sinkFileName({ idempotencyKey: "a/b", contentType: undefined }), "a_b.bin");
    const long = await sinkFileName({ idempotencyKey: "k".repeat(400), contentType: "text/plain" });
    assert.equal(long.length, 164);
    assert.notEqual(long, await sinkFileName({ idempotencyKey: `${"k".repeat(399)}j` }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a reader never sees a file half written", async () => {
  const dir = await Deno.makeTempDir();
  const size = 8 * 1024 * 1024;
  const torn: string[] = [];
  let writing = true;
  // Watches the directory the whole time: every visible non-dot file must be whole.
  const watcher = (async () => {
    while (writing) {
      for await (const e of Deno.readDir(dir)) {
        if (e.name.startsWith(".")) continue;
        const length = (await Deno.stat(join(dir, e.name)).catch(() => undefined))?.size;
        if (length !== undefined && length !== size) torn.push(`${e.name}: ${length}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  })();
  try {
    for (let i = 0; i < 5; i++) {
      const sent = await fileSink.send(message(dir, new Uint8Array(size).fill(65 + i), `k-${i}`));
      assert.equal(sent.outcome, "delivered");
    }
  } finally {
    writing = false;
    await watcher;
  }
  try {
    assert.deepEqual(torn, []);
    assert.equal((await names(dir)).length, 5, "no temporary file is left behind");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a directory that cannot be written is retried, not dropped", async () => {
  const result = await fileSink.send(message("/nonexistent-sutra-dir/out", new Uint8Array([1])));
  assert.equal(result.outcome, "retry");
  const bad = await fileSink.send({ ...message("x", new Uint8Array()), destination: "file://" });
  assert.equal(bad.outcome, "poison");
});
