/**
 * The engine's listener under connection floods (docs/security.md): a real
 * engine process, run out of file descriptors or up to its configured
 * connection cap, keeps running and serves again once connections close;
 * a slowloris connection is closed after the header timeout.
 */
import assert from "node:assert/strict";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";

async function withEngine(
  options: { env?: Record<string, string>; openFilesLimit?: number },
  run: (port: number, child: EngineChild) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-listener-" });
  const child = spawnEngine({
    cwd: dir,
    env: { SUTRA_DATASOURCE_URL: "memory://", ...options.env },
    ...(options.openFilesLimit === undefined ? {} : { openFilesLimit: options.openFilesLimit }),
  });
  try {
    await run(await child.started, child);
  } finally {
    child.kill("SIGKILL");
    await child.exited;
    await Deno.remove(dir, { recursive: true });
  }
}

/** Opens `count` idle connections (stops early when the client itself runs out). */
async function flood(port: number, count: number): Promise<Deno.TcpConn[]> {
  const conns: Deno.TcpConn[] = [];
  for (let i = 0; i < count; i++) {
    conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
  }
  return conns;
}

/** Polls `/sutra/health/live` until it answers 200 (the process must stay up meanwhile). */
async function servedAgain(port: number, child: EngineChild): Promise<void> {
  let exited = false;
  child.exited.then(() => exited = true);
  for (;;) {
    assert.equal(exited, false, "the engine process exited");
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/sutra/health/live`, {
        signal: AbortSignal.timeout(2_000),
      });
      await answer.body?.cancel();
      if (answer.status === 200) return;
    } catch {
      // Not yet: refused or timed out while descriptors are still short.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("an engine out of file descriptors keeps running and serves once connections close", async () => {
  // The cap stays at its default (1024), far above what 256 descriptors allow.
  await withEngine({ openFilesLimit: 256 }, async (port, child) => {
    const conns = await flood(port, 400);
    // Every descriptor is taken; the listener must ride it out, not die.
    await new Promise((r) => setTimeout(r, 500));
    for (const c of conns) c.close();
    await servedAgain(port, child);
  });
});

Deno.test("connections past sutra.http.max-connections are refused 503 while the held ones stay", async () => {
  await withEngine({ env: { SUTRA_HTTP_MAX_CONNECTIONS: "4" } }, async (port, child) => {
    const held = await flood(port, 4);
    const answer = await fetch(`http://127.0.0.1:${port}/sutra/health/live`);
    const body = await answer.json();
    assert.equal(answer.status, 503);
    assert.equal(body.diagnostics[0].code, "SUTRA.HTTP.CONNECTION_LIMIT");
    held[0].close();
    await servedAgain(port, child);
    for (const c of held.slice(1)) c.close();
  });
});

Deno.test("a slowloris connection is closed after sutra.http.header-timeout", async () => {
  await withEngine({ env: { SUTRA_HTTP_HEADER_TIMEOUT: "PT0.3S" } }, async (port) => {
    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    await slow.write(new TextEncoder().encode("GET /sutra/health/live HTTP/1.1\r\nHost: x\r\n"));
    const received: number[] = [];
    const buf = new Uint8Array(1_024);
    for (;;) {
      const n = await slow.read(buf).catch(() => null);
      if (n === null) break;
      received.push(...buf.subarray(0, n));
    }
    slow.close();
    // The head never completed: nothing is answered, the connection is simply closed.
    assert.equal(received.length, 0);
  });
});
