/**
 * A whole engine under row-level security (tier 2): running as a role the
 * policies confine, migrated by a separate owner role, it deploys a
 * package and runs instances across a park and a resume; booted as the
 * owner role with the same migration URL, it refuses to start.
 */
import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/mod.ts";
import { tier2Test } from "../support/test_database.ts";
import { bootEngine, post, sealDir } from "./support.ts";
import { as, withRoles } from "./tenancy_support.ts";

const KEY = { "x-api-key": "approval-demo-key" };

tier2Test(
  "the engine runs under row-level security as a confined role",
  () =>
    withRoles(async (roles) => {
      const env = { SUTRA_DATASOURCE_MIGRATION_URL: as(roles.owner) };
      const engine = await bootEngine({ url: as(roles.app), schema: roles.app, env });
      try {
        await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
        const parked = await post(engine, "/channels/approval-request", {
          ApprovalRequest: { E2EId: "R-1", Amount: "10.00" },
        }, KEY);
        assert.equal(parked.status, 200, JSON.stringify(parked.body));
        const resumed = await post(engine, "/channels/approval-decision", {
          ApprovalDecision: { E2EId: "R-1", Decision: "APPROVE" },
        }, KEY);
        assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
        assert.equal((resumed.body.instances as { status: string }[])[0].status, "COMPLETED");
      } finally {
        await engine.stop();
      }
      const refused = await bootEngine({ url: as(roles.owner), schema: roles.app, env })
        .then(async (e) => {
          await e.stop();
          return undefined;
        }, (e) => e);
      assert.ok(refused instanceof DiagnosticError, String(refused));
      assert.equal(refused.diagnostics[0].code, "SUTRA.DB.ROLE_BYPASSES_RLS");
    }),
);
