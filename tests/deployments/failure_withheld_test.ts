import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import { createAdminGate } from "../../engine/runtime/admin_auth.ts";
import { createDeploymentService } from "../../engine/runtime/deployments/mod.ts";
import { eachDatabase } from "../support/test_database.ts";
import { configOf, migrateRuntime, recordingLogger, sealRevision, TRANSPORTS } from "./_support.ts";

eachDatabase(
  "an async deploy failed by the database records a code and an incident id, never the database's text",
  async (db) => {
    await migrateRuntime(db);
    // A real database error at the flip: the row may be pending or failed, never active.
    await db.exec(`
      create function refuse_activation() returns trigger language plpgsql as $$
      begin
        if new.status = 'active' then raise exception 'secret_trigger_text refuses %', new.deployment_id; end if;
        return new;
      end $$;
      create trigger refuse_activation before insert or update on deployments
        for each row execute function refuse_activation();`);
    const config = await configOf();
    const { logger, lines } = recordingLogger();
    const service = createDeploymentService({
      db,
      logger,
      clock: new ManualClock("2026-01-01T00:00:00Z"),
      config,
      admin: await createAdminGate({ config, logger, env: {} }),
      transports: TRANSPORTS,
      sweepIntervalMs: 0,
    });
    await service.boot();
    try {
      const a = await sealRevision();
      assert.equal((await service.deploy(a.bytes, { async: true })).phase, "Pending");
      for (let i = 0; i < 500 && (await service.status(a.deploymentId))?.phase !== "Failed"; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const status = await service.status(a.deploymentId);
      assert.equal(status?.phase, "Failed");
      assert.equal(status?.failure?.code, "SUTRA.RUNTIME.UNEXPECTED");
      assert.doesNotMatch(JSON.stringify(status), /secret_trigger_text/);
      const incidentId = /incident (\S+)$/.exec(status?.failure?.detail ?? "")?.[1];
      assert.ok(incidentId, status?.failure?.detail);
      const logged = lines().find((l) => l.incidentId === incidentId);
      assert.match(JSON.stringify(logged), /secret_trigger_text/);
    } finally {
      await service.close();
    }
  },
);
