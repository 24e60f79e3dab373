/**
 * An engine whose database connections are cut from outside (a server
 * restart, a failover, an operator) keeps serving: a request that meets a
 * cut connection fails with 500 and nothing half-written, and the next ones
 * are answered again; a cut that swallows a COMMIT's answer is resolved by
 * asking the server.
 */
import assert from "node:assert/strict";
import { startCutProxy } from "../support/pg_cut_proxy.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, codeOf, post, sealDir } from "./support.ts";

const QUOTE = { item: "widget", quantity: 3, unitPrice: 2.5 };

tier2Test(
  "an engine whose database connections are cut keeps answering",
  () =>
    withServerDatabase(async (admin, target) => {
      const engine = await bootEngine({ url: target.url, schema: target.schema });
      try {
        await engine.deployments.deploy(await sealDir("examples/quote-reply/package"));
        assert.equal((await post(engine, "/channels/quote-request", QUOTE)).status, 200);

        // Find the backends of the engine's pool (only this engine's: other tests share the server).
        const pids = new Set<number>();
        await Promise.all(Array.from({ length: 30 }, async () => {
          const { rows } = await engine.database.query<{ pid: number }>(
            "select pg_backend_pid() as pid, pg_sleep(0.05)",
          );
          pids.add(rows[0].pid);
        }));
        for (const pid of pids) await admin.query("select pg_terminate_backend($1)", [pid]);

        let answered = 0;
        for (let i = 0; i < 20 && answered < 5; i++) {
          const reply = await post(engine, "/channels/quote-request", QUOTE);
          if (reply.status === 200) {
            assert.deepEqual(reply.body, { item: "widget", quantity: 3, total: 7.5 });
            answered++;
          } else {
            // Meeting a cut connection is a plain failure, never a hang or a partial write.
            assert.equal(reply.status, 500, JSON.stringify(reply.body));
            assert.equal(codeOf(reply), "SUTRA.RUNTIME.UNEXPECTED");
          }
        }
        assert.equal(answered, 5);
        const { rows } = await admin.query<{ n: number }>(
          `select count(*)::int as n from "${target.schema}".instances where status = 'COMPLETED'`,
        );
        assert.equal(rows[0].n, 6, "one instance per answered request, none for a failed one");
      } finally {
        await engine.stop();
      }
    }),
);

tier2Test(
  "a park whose COMMIT answer is lost is answered as parked, once",
  () =>
    withServerDatabase(async (admin, target) => {
      const proxy = startCutProxy(target.url);
      const engine = await bootEngine({ url: proxy.url, schema: target.schema });
      try {
        await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
        proxy.cutNext("after-commit", { ran: "insert into instances" });
        const parked = await post(
          engine,
          "/channels/approval-request",
          { ApprovalRequest: { E2EId: "E2E-DOUBT", Amount: "10.00" } },
          { "x-api-key": "approval-demo-key" },
        );
        await proxy.cut();
        // The commit took effect; the engine asked the server and answers as for any park.
        assert.equal(parked.status, 200, JSON.stringify(parked.body));
        const [{ instanceId }] = parked.body.instances as { instanceId: string }[];
        const { rows } = await admin.query<{ instance_id: string; status: string }>(
          `select instance_id, status from "${target.schema}".instances`,
        );
        assert.deepEqual(rows, [{ instance_id: instanceId, status: "RUNNING" }]);
      } finally {
        await engine.stop();
        await proxy.close();
      }
    }),
);
