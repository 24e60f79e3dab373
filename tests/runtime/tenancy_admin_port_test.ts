/**
 * The admin surface on a listener of its own (`sutra.admin.port`): there
 * it answers `/admin/*` and the console and nothing else, and the main
 * listener answers those paths as routes it does not have. Without the
 * setting, one listener serves everything.
 */
import assert from "node:assert/strict";
import { bootEngine, codeOf, get } from "./support.ts";

Deno.test("sutra.admin.port moves /admin/* and the console to their own listener", async () => {
  const engine = await bootEngine({
    env: { SUTRA_ADMIN_PORT: "0", SUTRA_CONSOLE_ENABLED: "true" },
  });
  try {
    const adminUrl = engine.adminUrl ?? assert.fail("no admin listener");
    assert.match(adminUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(adminUrl, engine.url);
    const admin = { url: adminUrl };
    for (const path of ["/admin/deployments", "/admin/tenants/demo/usage"]) {
      assert.equal((await get(admin, path)).status, 200, path);
      const hidden = await get(engine, path);
      assert.equal(hidden.status, 404, path);
      assert.equal(codeOf(hidden), "SUTRA.HTTP.NOT_FOUND");
    }
    const console = await fetch(`${adminUrl}/console`);
    assert.equal(console.status, 200);
    await console.body?.cancel();
    const hiddenConsole = await fetch(`${engine.url}/console`);
    assert.equal(hiddenConsole.status, 404);
    await hiddenConsole.body?.cancel();
    assert.equal((await get(engine, "/sutra/health/live")).status, 200);
    assert.equal((await get(admin, "/sutra/health/live")).status, 404);
  } finally {
    await engine.stop();
  }
});

Deno.test("without sutra.admin.port one listener serves the admin surface too", async () => {
  const engine = await bootEngine();
  try {
    assert.equal(engine.adminUrl, undefined);
    assert.equal((await get(engine, "/admin/deployments")).status, 200);
    assert.equal((await get(engine, "/sutra/health/live")).status, 200);
  } finally {
    await engine.stop();
  }
});
