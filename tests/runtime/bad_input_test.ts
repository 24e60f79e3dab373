/**
 * Bad input at the HTTP surfaces gets its documented status and code, and
 * nothing is written: an unknown channel, a missing or wrong API key, an
 * oversized payload, bad JSON, a malformed archive, an unknown instance.
 */
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { type RunningEngine, startEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, codeOf, get, post, sealDir } from "./support.ts";

Deno.test("bad input answers with its status and SUTRA code and writes nothing", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    const key = { "x-api-key": "approval-demo-key" };
    const good = { ApprovalRequest: { E2EId: "E2E-1", Amount: "10.00" } };

    const unknown = await post(engine, "/channels/nowhere", good, key);
    assert.deepEqual([unknown.status, codeOf(unknown)], [404, "SUTRA.RESOLVE.CHANNEL.UNKNOWN"]);

    const noKey = await post(engine, "/channels/approval-request", good);
    assert.deepEqual([noKey.status, codeOf(noKey)], [401, "SUTRA.INBOUND.AUTH.MISSING"]);
    const wrongKey = await post(engine, "/channels/approval-request", good, { "x-api-key": "x" });
    assert.deepEqual([wrongKey.status, codeOf(wrongKey)], [401, "SUTRA.INBOUND.AUTH.INVALID"]);

    const badJson = await post(engine, "/channels/approval-request", "{not json", key);
    assert.equal(badJson.status, 400);
    assert.match(codeOf(badJson) ?? "", /^SUTRA\./);

    // typed-async caps payloads at 512 bytes; the cap is checked before decoding.
    const big = await post(engine, "/channels/typed-async", { ref: "x".repeat(600) });
    assert.deepEqual([big.status, codeOf(big)], [413, "SUTRA.INBOUND.PAYLOAD_TOO_LARGE"]);

    const archive = await fetch(`${engine.url}/admin/deployments`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array([1, 2, 3, 4]),
    });
    const refusal = await archive.json();
    assert.ok(archive.status >= 400 && archive.status < 500, String(archive.status));
    assert.match(refusal.diagnostics[0].code, /^SUTRA\.(DEPLOY|PACKAGE)\./);

    const missing = await get(engine, "/sutra/instances/does-not-exist");
    assert.deepEqual([missing.status, codeOf(missing)], [404, "SUTRA.RUNTIME.INSTANCE.UNKNOWN"]);

    const { rows } = await engine.database.query<{ n: number }>(
      "select (select count(*) from instances)::int + (select count(*) from inbox)::int as n",
    );
    assert.equal(rows[0].n, 0);
  } finally {
    await engine.stop();
  }
});

Deno.test("cancel ends a parked instance; a second cancel is refused", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
    const parked = await post(engine, "/channels/approval-request", {
      ApprovalRequest: { E2EId: "E2E-C", Amount: "1.00" },
    }, { "x-api-key": "approval-demo-key" });
    const id = (parked.body.instances as { instanceId: string }[])[0].instanceId;
    const cancelled = await post(engine, `/admin/instances/${id}/cancel`, "");
    assert.deepEqual([cancelled.status, cancelled.body.status], [200, "TERMINATED"]);
    const again = await post(engine, `/admin/instances/${id}/cancel`, "");
    assert.deepEqual([again.status, codeOf(again)], [409, "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE"]);
    // Cancelling released the business key.
    const reused = await post(engine, "/channels/approval-request", {
      ApprovalRequest: { E2EId: "E2E-C", Amount: "1.00" },
    }, { "x-api-key": "approval-demo-key" });
    assert.equal(reused.status, 200, JSON.stringify(reused.body));
  } finally {
    await engine.stop();
  }
});

Deno.test("maxConcurrentInstances refuses a start while the channel's live instances fill it", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    assert.equal((await post(engine, "/channels/typed-capped", { ref: "C-1" })).status, 200);
    const full = await post(engine, "/channels/typed-capped", { ref: "C-2" });
    assert.deepEqual([full.status, codeOf(full)], [429, "SUTRA.INBOUND.CONCURRENCY_LIMIT"]);
    assert.equal(full.headers.get("retry-after"), "1");
    // Finishing the first instance frees its slot.
    assert.equal(
      (await post(engine, "/channels/typed-decision", { cappedRef: "C-1" })).status,
      200,
    );
    assert.equal((await post(engine, "/channels/typed-capped", { ref: "C-2" })).status, 200);
  } finally {
    await engine.stop();
  }
});

Deno.test("a q:reply rendered from the package's template is the synchronous answer", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    const response = await fetch(`${engine.url}/channels/typed-greet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada" }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await response.text(), "Hello, Ada!");
  } finally {
    await engine.stop();
  }
});

Deno.test("business-rule tasks evaluate the package's .srl ruleset and DMN decision", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    const big = await post(engine, "/channels/typed-size", { amount: 250 });
    const small = await post(engine, "/channels/typed-size", { amount: 20 });
    assert.deepEqual([big.status, big.body, small.body], [
      200,
      { size: "big", tier: "gold" },
      { size: "small", tier: "basic" },
    ]);
  } finally {
    await engine.stop();
  }
});

/** An engine like `bootEngine`'s whose log records are kept. */
async function bootLogged(): Promise<
  { engine: RunningEngine; records: Record<string, unknown>[] }
> {
  const records: Record<string, unknown>[] = [];
  const env = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: "memory://",
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  };
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logger = createLogger("engine", {
    filter: "debug",
    write: (line) => records.push(JSON.parse(line)),
  });
  return { engine: await startEngine({ config, logger, env }), records };
}

/** Sends raw bytes and reads the answer to the end; `closeWrite` ends the upload half-sent. */
async function rawExchange(
  engine: RunningEngine,
  request: string,
  options: { closeWrite?: boolean } = {},
): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: engine.port });
  await conn.write(new TextEncoder().encode(request));
  if (options.closeWrite) await conn.closeWrite();
  const received: number[] = [];
  const buf = new Uint8Array(4_096);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    received.push(...buf.subarray(0, n));
  }
  conn.close();
  return new TextDecoder().decode(new Uint8Array(received));
}

Deno.test("malformed HTTP is a 4xx SUTRA.HTTP diagnostic naming the limit, never a 500 or an error log", async () => {
  const { engine, records } = await bootLogged();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    const nul = await get(engine, "/sutra/instances/%00");
    assert.deepEqual([nul.status, codeOf(nul)], [400, "SUTRA.HTTP.PATH_INVALID"]);
    assert.match(JSON.stringify(nul.body), /U\+0000/);

    const extension = await rawExchange(
      engine,
      "POST /channels/typed-async HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Transfer-Encoding: chunked\r\n\r\n2;${"e".repeat(100_000)}\r\n{}\r\n0\r\n\r\n`,
    );
    assert.match(extension, /^HTTP\/1\.1 400 /);
    assert.match(extension, /SUTRA\.HTTP\.CHUNK_INVALID/);

    // An upload the client breaks off: at most a debug line, never an error with a stack.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: engine.port });
    await conn.write(
      new TextEncoder().encode(
        "POST /channels/typed-async HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          'Content-Length: 400\r\n\r\n{"ref":"',
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    conn.close();
    while (!records.some((r) => r.code === "SUTRA.HTTP.REQUEST_ABORTED")) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(records.filter((r) => r.level === "ERROR").map((r) => r.message), []);
  } finally {
    await engine.stop();
  }
});

Deno.test("an HTTP channel answers 413 at its cap without waiting for the rest of the body", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    // typed-async caps payloads at 512 bytes. Each client sends a part of its body and then
    // stops sending: an engine that read whole bodies before checking would never see the rest.
    const head =
      "POST /channels/typed-async HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    const declared = await rawExchange(
      engine,
      `${head}Content-Length: 536870912\r\n\r\n${"x".repeat(1_024)}`,
      { closeWrite: true },
    );
    assert.match(declared, /^HTTP\/1\.1 413 /);
    assert.match(declared, /SUTRA\.INBOUND\.PAYLOAD_TOO_LARGE.*536870912-byte payload/);
    const chunk = `400\r\n${"x".repeat(1_024)}\r\n`;
    const chunked = await rawExchange(
      engine,
      `${head}Transfer-Encoding: chunked\r\n\r\n${chunk}`,
      { closeWrite: true },
    );
    assert.match(chunked, /^HTTP\/1\.1 413 /);
    assert.match(chunked, /SUTRA\.INBOUND\.PAYLOAD_TOO_LARGE.*more than \d+ bytes.*512-byte cap/);
  } finally {
    await engine.stop();
  }
});

/** Sends `request` (a body cut short), closes the sending side, and reads the answer. */
