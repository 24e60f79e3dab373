import assert from "node:assert/strict";
import {
  ADMIN_KEY,
  sealLintFailure,
  sealRevision,
  SLOT,
  startTestEngine,
  type TestEngine,
} from "./_support.ts";

async function withEngine(
  fn: (engine: TestEngine) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const engine = await startTestEngine(env);
  try {
    await fn(engine);
  } finally {
    await engine.close();
  }
}

interface Answer {
  readonly status: number;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

async function send(
  engine: TestEngine,
  method: string,
  path: string,
  options: { body?: Uint8Array; key?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/octet-stream" };
  const key = options.key === undefined ? ADMIN_KEY : options.key;
  if (key !== null) headers["x-api-key"] = key;
  const response = await fetch(`${engine.url}${path}`, {
    method,
    headers,
    ...(options.body ? { body: new Uint8Array(options.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

const codes = (a: Answer): string[] => a.body.diagnostics.map((d: { code: string }) => d.code);

Deno.test("deploy, status, hot-deploy and undeploy over HTTP", () =>
  withEngine(async (engine) => {
    const a = await sealRevision("Hello");
    const b = await sealRevision("Hello v2");

    const deployed = await send(engine, "POST", "/admin/deployments", { body: a.bytes });
    assert.equal(deployed.status, 200);
    assert.equal(deployed.body.deploymentId, a.deploymentId);
    assert.equal(deployed.body.phase, "Active");
    assert.equal(deployed.body.slot, SLOT);

    const again = await send(engine, "POST", "/admin/deployments", { body: a.bytes });
    assert.equal(again.status, 200);
    assert.equal(again.body.unchanged, true);

    const hot = await send(engine, "POST", "/admin/deployments", { body: b.bytes });
    assert.deepEqual(hot.body.drained, [a.deploymentId]);

    const status = await send(engine, "GET", `/sutra/deployments/${a.deploymentId}`, {
      key: null,
    });
    assert.equal(status.status, 200);
    assert.equal(status.body.phase, "Draining");
    assert.equal(status.body.labels.module, "hello");
    assert.ok(status.body.drainedAt);

    const removed = await send(engine, "DELETE", `/admin/deployments/${SLOT}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { deploymentId: b.deploymentId, slot: SLOT, phase: "Draining" });
    assert.equal(await engine.service.retireSweep(), 2);
    const retired = await send(engine, "GET", `/sutra/deployments/${b.deploymentId}`);
    assert.equal(retired.body.phase, "Retired");

    const unknown = await send(engine, "DELETE", `/admin/deployments/${SLOT}`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(codes(unknown), ["SUTRA.DEPLOY.UNKNOWN"]);
    const missing = await send(engine, "GET", "/sutra/deployments/feedface");
    assert.equal(missing.status, 404);
    assert.deepEqual(codes(missing), ["SUTRA.DEPLOY.UNKNOWN"]);
  }));

Deno.test("async deploy answers 202 with a poll address that settles to Active", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const accepted = await send(engine, "POST", "/admin/deployments?async=true", {
      body: a.bytes,
    });
    assert.equal(accepted.status, 202);
    assert.equal(accepted.body.phase, "Pending");
    assert.equal(accepted.body.poll, `/sutra/deployments/${a.deploymentId}`);
    let phase = "Pending";
    for (let i = 0; i < 200 && phase === "Pending"; i++) {
      phase = (await send(engine, "GET", accepted.body.poll)).body.phase;
      if (phase === "Pending") await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(phase, "Active");
  }));

Deno.test("bad archives get 4xx with SUTRA.DEPLOY diagnostics", () =>
  withEngine(async (engine) => {
    const malformed = await send(engine, "POST", "/admin/deployments", {
      body: new TextEncoder().encode("definitely not a zip"),
    });
    assert.equal(malformed.status, 400);
    assert.ok(codes(malformed).every((c) => c === "SUTRA.DEPLOY.ARCHIVE_INVALID"));

    const a = await sealRevision();
    const tampered = a.bytes.slice();
    tampered[200] ^= 0xff;
    const bad = await send(engine, "POST", "/admin/deployments", { body: tampered });
    assert.equal(bad.status, 400);
    assert.ok(codes(bad).includes("SUTRA.DEPLOY.ARCHIVE_INVALID"));

    const lint = await send(engine, "POST", "/admin/deployments", {
      body: (await sealLintFailure()).bytes,
    });
    assert.equal(lint.status, 422);
    assert.equal(codes(lint)[0], "SUTRA.DEPLOY.LINT_FAILED");
    assert.ok(codes(lint).length > 1, "the package's own findings follow");
  }));

Deno.test("an archive over the size cap is refused with 413", () =>
  withEngine(async (engine) => {
    const big = await send(engine, "POST", "/admin/deployments", { body: new Uint8Array(2048) });
    assert.equal(big.status, 413);
    assert.deepEqual(codes(big), ["SUTRA.DEPLOY.ARCHIVE_TOO_LARGE"]);
  }, { SUTRA_DEPLOYMENTS_MAX_ARCHIVE_BYTES: "1024" }));

Deno.test("the admin routes are gated: 401 without or with a wrong key", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const none = await send(engine, "POST", "/admin/deployments", { body: a.bytes, key: null });
    assert.equal(none.status, 401);
    assert.deepEqual(codes(none), ["SUTRA.ADMIN.AUTH.MISSING"]);
    const wrong = await send(engine, "DELETE", `/admin/deployments/${SLOT}`, { key: "nope" });
    assert.equal(wrong.status, 401);
    assert.equal(engine.service.registry.list().length, 0);
  }));

Deno.test("an engine without an admin key answers 503 on the admin routes", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const closed = await send(engine, "POST", "/admin/deployments", { body: a.bytes });
    assert.equal(closed.status, 503);
    assert.deepEqual(codes(closed), ["SUTRA.ADMIN.AUTH.UNCONFIGURED"]);
  }, { SUTRA_ADMIN_AUTH_API_KEY: "" }));

Deno.test("a key carrying only the operate role cannot deploy", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const forbidden = await send(engine, "POST", "/admin/deployments", { body: a.bytes });
    assert.equal(forbidden.status, 403);
    assert.deepEqual(codes(forbidden), ["SUTRA.ADMIN.AUTH.FORBIDDEN"]);
  }, { SUTRA_ADMIN_AUTH_ROLES: "operate" }));

/** The completion events the engine queued: destination, type and data. */
async function queuedEvents(engine: TestEngine) {
  const { rows } = await engine.db.query<{ destination: string; body: Uint8Array }>(
    "select destination, body from outbox order by destination",
  );
  return rows.map((r) => {
    const event = JSON.parse(new TextDecoder().decode(r.body));
    return { destination: r.destination, type: event.type, data: event.data };
  });
}

Deno.test("a deploy with callbacks queues its completion event for each, once settled", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const hooks = ["https://hooks.example/a", "http://127.0.0.1:9/b"];
    const query = hooks.map((h) => `callback=${encodeURIComponent(h)}`).join("&");
    const accepted = await send(engine, "POST", `/admin/deployments?async=true&${query}`, {
      body: a.bytes,
    });
    assert.equal(accepted.status, 202);
    for (let i = 0; i < 200 && (await queuedEvents(engine)).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const data = { deploymentId: a.deploymentId, slot: SLOT, revision: "1.0.0", status: "Active" };
    assert.deepEqual(await queuedEvents(engine), [
      { destination: hooks[1], type: "com.sutra.deployment.activated", data },
      { destination: hooks[0], type: "com.sutra.deployment.activated", data },
    ]);

    // A failed deploy says so, with its reason.
    const bad = await sealLintFailure();
    const refused = await send(engine, "POST", `/admin/deployments?callback=${hooks[0]}`, {
      body: bad.bytes,
    });
    assert.equal(refused.status, 422);
    const failed = (await queuedEvents(engine)).filter((e) =>
      e.type === "com.sutra.deployment.failed"
    );
    assert.equal(failed.length, 1);
    assert.equal(failed[0].data.deploymentId, bad.deploymentId);
    assert.equal(failed[0].data.status, "Failed");
    assert.equal(failed[0].data.error.code, "SUTRA.DEPLOY.LINT_FAILED");
  }));

Deno.test("a malformed callback or a notify no linked transport serves is refused and stores nothing", () =>
  withEngine(async (engine) => {
    const a = await sealRevision();
    const refused = await send(
      engine,
      "POST",
      "/admin/deployments?async=true&callback=ftp%3A%2F%2Fx&notify=nosuch%3A%2F%2Fb%2Fdeploys",
      { body: a.bytes },
    );
    assert.equal(refused.status, 400);
    assert.deepEqual(codes(refused), [
      "SUTRA.DEPLOY.CALLBACK_INVALID",
      "SUTRA.DEPLOY.NOTIFY_UNSUPPORTED",
    ]);
    const { rows } = await engine.db.query("select 1 from deployments");
    assert.equal(rows.length, 0);
  }));
