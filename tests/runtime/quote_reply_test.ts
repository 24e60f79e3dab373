/**
 * The quote-reply example over HTTP: a valid request is priced and answered
 * on the same connection; one that breaks the example's JSON schema is
 * refused with 422 and its diagnostics, and no instance is written.
 */
import assert from "node:assert/strict";
import { bootEngine, codeOf, post, sealDir } from "./support.ts";

Deno.test("quote-reply answers a valid request and refuses one that breaks its schema with 422", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("examples/quote-reply/package"));
    const quote = await post(engine, "/channels/quote-request", {
      item: "widget",
      quantity: 120,
      unitPrice: 2.5,
    });
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    assert.deepEqual(quote.body, { item: "widget", quantity: 120, total: 285 });

    const missing = await post(engine, "/channels/quote-request", { item: "widget" });
    assert.deepEqual([missing.status, codeOf(missing)], [422, "SUTRA.INBOUND.VALIDATION_REJECTED"]);
    const text = JSON.stringify(missing.body.diagnostics);
    assert.match(text, /quantity/);
    assert.match(text, /unitPrice/);
    const negative = await post(engine, "/channels/quote-request", {
      item: "widget",
      quantity: -1,
      unitPrice: 2.5,
    });
    assert.deepEqual([negative.status, codeOf(negative)], [
      422,
      "SUTRA.INBOUND.VALIDATION_REJECTED",
    ]);
    const { rows } = await engine.database.query<{ n: number }>(
      "select count(*)::int as n from instances where status <> 'COMPLETED'",
    );
    assert.equal(rows[0].n, 0);
  } finally {
    await engine.stop();
  }
});
