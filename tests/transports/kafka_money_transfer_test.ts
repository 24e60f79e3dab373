/**
 * The money-transfer example's Kafka intake (`transfer-topic`, singleton,
 * on-complete) against the Kafka test double: a `TransferRequest` record
 * with a `reply-to` header moves the money and gets its answer on the
 * reply topic; one the schema refuses is dead-lettered with the
 * diagnostic.
 */
import "../../io/datastores/mod.ts";
import assert from "node:assert/strict";
import { bootEngine, sealDir } from "../runtime/support.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import { serverDatabaseUrl, withServerDatabase } from "../support/test_database.ts";
import { kafkaTest } from "./kafka_support.ts";

kafkaTest(
  "money-transfer: a TransferRequest record is answered on its reply topic",
  async (ctx) => {
    const { brokers, client } = ctx;
    await client.topics(["money-transfer.requests", "money-transfer.requests.dlt", "mt.replies"]);
    // The ledger gets a database of its own on the tier-2 server (it boots faster than PGlite).
    const server = serverDatabaseUrl()!;
    const accounts = `sutra_accounts_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = await openDatabase(server, { maxConnections: 1 });
    await admin.exec(`create database ${accounts}`);
    const accountsUrl = Object.assign(new URL(server), { pathname: `/${accounts}` }).href;
    try {
      await withServerDatabase(async (_db, target) => {
        const engine = await bootEngine({
          url: target.url,
          schema: target.schema,
          env: { SUTRA_KAFKA_BROKERS: brokers, ACCOUNTS_DB_URL: accountsUrl },
        });
        try {
          await engine.deployments.deploy(await sealDir("examples/money-transfer/package"));
          const request = (amount: string) => ({
            TransferRequest: { FromAccount: "alice", ToAccount: "bob", Amount: amount },
          });
          await client.send("money-transfer.requests", [
            {
              value: request("25.00"),
              key: "alice",
              headers: { "reply-to": "mt.replies", "correlation-id": "t-1" },
            },
            { value: request("-5"), key: "alice", headers: { "reply-to": "mt.replies" } },
          ]);
          const [reply] = await client.read("mt.replies", 1, 30_000);
          assert.equal(JSON.parse(reply.value).status, "ACCEPTED");
          assert.equal(reply.headers["correlation-id"], "t-1");
          const [dead] = await client.read("money-transfer.requests.dlt", 1, 30_000);
          assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.INBOUND.VALIDATION_REJECTED");
        } finally {
          await engine.stop();
        }
      });
    } finally {
      await admin.exec(`drop database if exists ${accounts} with (force)`);
      await admin.close();
    }
  },
  { doubleOnly: true },
);
