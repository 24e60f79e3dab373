import assert from "node:assert/strict";
import { ConfigRegistry, DiagnosticError, loadConfig } from "../core/mod.ts";
import { PAYLOAD_CAP_BYTES } from "./settings.ts";

const registry = new ConfigRegistry();
registry.define(PAYLOAD_CAP_BYTES);
const cwd = "/nonexistent-dir";

Deno.test("the payload cap defaults to 10 MiB and is read from SUTRA_INBOUND_PAYLOAD_CAP_BYTES", async () => {
  const defaulted = await loadConfig({ env: {}, registry, cwd });
  assert.equal(defaulted.require(PAYLOAD_CAP_BYTES), 10 * 1024 * 1024);
  const set = await loadConfig({ env: { SUTRA_INBOUND_PAYLOAD_CAP_BYTES: "4096" }, registry, cwd });
  assert.equal(set.require(PAYLOAD_CAP_BYTES), 4096);
});

Deno.test("a negative payload cap fails boot instead of disabling the cap", async () => {
  await assert.rejects(
    loadConfig({ env: { SUTRA_INBOUND_PAYLOAD_CAP_BYTES: "-1" }, registry, cwd }),
    (e: unknown) =>
      e instanceof DiagnosticError &&
      e.diagnostics[0].code === "SUTRA.CONFIG.PROPERTY.INVALID" &&
      /sutra\.inbound\.payload-cap-bytes/.test(e.diagnostics[0].message),
  );
});
