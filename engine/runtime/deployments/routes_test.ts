/**
 * The live OpenAPI document of a deployment, over real HTTP from a running
 * engine: the same document `sutra openapi` prints for the package, and a
 * valid OpenAPI 3.1 document.
 */
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { checkPackage, readPackageDir } from "../../package/mod.ts";
import { openApiDocument } from "../../package/openapi.ts";
import { bootEngine, sealDir } from "../../../tests/runtime/support.ts";
import { transports } from "../../core/transport.ts";

Deno.test("GET /sutra/deployments/{id}/openapi.json serves the live deployment's document", async () => {
  const engine = await bootEngine();
  try {
    const deployed = await fetch(`${engine.url}/admin/deployments`, {
      method: "POST",
      body: new Uint8Array(await sealDir("examples/quote-reply/package")),
    });
    const { deploymentId } = await deployed.json();
    assert.equal(deployed.status, 200);

    const response = await fetch(`${engine.url}/sutra/deployments/${deploymentId}/openapi.json`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    // deno-lint-ignore no-explicit-any
    const live: any = await response.json();
    assert.ok(live.paths["/channels/quote-request"].post);
    // The validator dereferences in place, so it gets a copy.
    await SwaggerParser.validate(structuredClone(live));
    const dir = new URL("../../../examples/quote-reply/package", import.meta.url).pathname;
    const checked = await checkPackage((await readPackageDir(dir)).files!, { transports });
    assert.deepEqual(live, openApiDocument(checked.package, { deploymentId }));

    const unknown = await fetch(`${engine.url}/sutra/deployments/${"0".repeat(64)}/openapi.json`);
    assert.equal(unknown.status, 404);
    const body = await unknown.json();
    assert.deepEqual(body.diagnostics.map((d: { code: string }) => d.code), [
      "SUTRA.DEPLOY.UNKNOWN",
    ]);
  } finally {
    await engine.stop();
  }
});
