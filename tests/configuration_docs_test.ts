import assert from "node:assert/strict";
import { configKeys, envName } from "../engine/core/config.ts";
import "../engine/intake/settings.ts";
import "../engine/runtime/admin/console.ts";
import "../engine/runtime/admin_auth.ts";
import "../engine/runtime/deployments/settings.ts";
import "../engine/runtime/settings.ts";
import "../engine/runtime/timers/settings.ts";
import "../engine/runtime/external_tasks/settings.ts";
import "../io/secrets/settings.ts";

Deno.test("docs/configuration.md documents every key the engine declares", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/configuration.md", import.meta.url));
  const missing = configKeys.list()
    .filter((k) => !doc.includes(`\`${k.key}\``) || !doc.includes(`\`${envName(k.key)}\``))
    .map((k) => k.key);
  assert.deepEqual(missing, []);
});
