import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { sealPackage } from "../engine/package/mod.ts";
import { everyTransport } from "./_authoring_test_support.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { DiagnosticError, UsageError, verboseIo } from "./command.ts";
import { readPackageArgument } from "./lint.ts";
import { openapiCommand } from "./openapi.ts";

const transports = everyTransport;
const openapi = openapiCommand({ transports });
const examples = new URL("../examples/", import.meta.url).pathname;

async function exampleDirs(): Promise<string[]> {
  const dirs: string[] = [];
  for await (const e of Deno.readDir(examples)) {
    if (e.isDirectory) dirs.push(`${examples}${e.name}/package`);
  }
  return dirs.sort();
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function documentOf(path: string): Promise<Json> {
  const c = captureIo();
  assert.equal(await openapi.run([path], c.io), 0, c.err());
  return JSON.parse(c.out());
}

Deno.test("openapi: every example's document is valid OpenAPI 3.1", async () => {
  const dirs = await exampleDirs();
  assert.ok(dirs.length >= 5);
  for (const dir of dirs) {
    const document = await documentOf(dir);
    assert.equal(document.openapi, "3.1.0");
    // The validator dereferences in place, so it gets a copy.
    await SwaggerParser.validate(structuredClone(document) as Json);
  }
  // The validator does check: a response without its description is refused.
  const broken = await documentOf(dirs[0]);
  const operation = Object.values(broken.paths as Record<string, Json>)[0].post;
  delete operation.responses["400"].description;
  await assert.rejects(() => SwaggerParser.validate(broken));
});

Deno.test("openapi: money-transfer's channels, bodies, auth and refusals", async () => {
  const document = await documentOf(`${examples}money-transfer/package`);
  const transfer = document.paths["/channels/transfer-request"].post;
  assert.deepEqual(Object.keys(transfer.requestBody.content), [
    "application/json",
    "application/xml",
    "text/xml",
  ]);
  const json = document.components.schemas["transfer.TransferRequest.document"];
  assert.deepEqual(json.required, ["TransferRequest"]);
  assert.deepEqual(
    Object.keys(json.properties.TransferRequest.properties),
    ["FromAccount", "ToAccount", "Amount"],
  );
  assert.deepEqual(document.components.schemas["transfer.TransferRequest"].xml, {
    name: "TransferRequest",
  });
  assert.deepEqual(transfer.security, [{ "apikey-x-api-key": [] }]);
  assert.deepEqual(document.components.securitySchemes["apikey-x-api-key"], {
    type: "apiKey",
    in: "header",
    name: "X-Api-Key",
  });
  assert.deepEqual(Object.keys(transfer.responses), [
    "200",
    "400",
    "401",
    "404",
    "409",
    "413",
    "422",
    "429",
    "500",
  ]);
  assert.match(transfer.description, /^Starts transfer#/);
  // The queue intake is not HTTP: listed, not a path.
  const others = document["x-sutra-channels"] as { channel: string; transport: string }[];
  assert.ok(others.some((c) => c.channel === "transfer-queue" && c.transport === "rabbitmq"));
  assert.ok(others.every((c) => c.transport !== "http"));
  assert.deepEqual(document["x-sutra-datastores"], [
    { name: "accounts", type: "sql" },
    { name: "coverage", type: "sql" },
  ]);
});

Deno.test("openapi: an archive's document names its deployment and matches the directory's", async () => {
  const dir = `${examples}quote-reply/package`;
  const sealed = await sealPackage(await readPackageArgument(dir), { transports });
  assert.ok(sealed.archive);
  const file = await Deno.makeTempFile({ suffix: ".sutra" });
  try {
    await Deno.writeFile(file, sealed.archive.bytes);
    const fromArchive = await documentOf(file);
    assert.equal(fromArchive["x-sutra-deployment"], sealed.archive.deploymentId);
    assert.match(fromArchive.info.description, new RegExp(sealed.archive.deploymentId));
    const fromDir = await documentOf(dir);
    assert.deepEqual(fromArchive.paths, fromDir.paths);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("openapi: a package with errors is refused with them; arguments are checked", async () => {
  const c = captureIo();
  const faulty = new URL("../tests/fixtures/package/multi_fault", import.meta.url).pathname;
  const refused = await openapi.run([faulty], c.io).catch((e) => e);
  assert.ok(refused instanceof DiagnosticError);
  assert.ok(refused.diagnostics.length > 0);
  assert.ok(refused.diagnostics.every((d) => d.severity === "ERROR"));
  assert.equal(c.out(), "");
  await assert.rejects(() => openapi.run([], c.io), UsageError);
  await assert.rejects(() => openapi.run(["a", "b"], c.io), UsageError);
  const missing = await openapi.run(["/nonexistent/x.sutra"], c.io).catch((e) => e);
  assert.ok(missing instanceof DiagnosticError);
});

Deno.test("openapi -v lists the files it reads on stderr; the document stays alone on stdout", async () => {
  const [dir] = await exampleDirs();
  const c = captureIo();
  assert.equal(await openapi.run([dir], verboseIo(c.io, "debug", false)), 0, c.err());
  assert.equal(JSON.parse(c.out()).openapi, "3.1.0");
  assert.match(c.err(), new RegExp(`INFO openapi: read \\d+ file\\(s\\) from ${dir}\n`));
  assert.match(c.err(), new RegExp(`INFO openapi: read ${dir}/package\\.yaml\n`));
  assert.match(c.err(), new RegExp(`DEBUG openapi: checking ${dir} took `));
});
