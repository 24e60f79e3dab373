/**
 * A whole engine under row-level security (tier 2): running as a role the
 * policies confine, migrated by a separate owner role, it deploys a
 * package and runs instances across a park and a resume; booted as the
 * owner role with the same migration URL, it refuses to start.
 */
import "../../io/datastores/mod.ts";
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
      const env = {
        SUTRA_DATASOURCE_MIGRATION_URL: as(roles.owner),
        ACCOUNTS_DB_URL: "pglite:memory://",
        COVERAGE_DB_URL: "pglite:memory://",
      };
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
        // A step writing a data store also writes its redo row, under the same policies.
        await engine.deployments.deploy(await sealDir("examples/money-transfer/package"));
        const moved = await post(engine, "/channels/transfer-request", {
          TransferRequest: { FromAccount: "alice", ToAccount: "bob", Amount: "1.00" },
        }, { "x-api-key": "transfer-demo-key" });
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        assert.equal(moved.body.status, "ACCEPTED", JSON.stringify(moved.body));
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
