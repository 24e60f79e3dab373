import assert from "node:assert/strict";
import { classifyLayout } from "./layout.ts";

const files = (...paths: string[]) => new Map(paths.map((p) => [p, new Uint8Array()]));

Deno.test("artifacts are classified recursively with keys relative to their folder", () => {
  const { layout, diagnostics } = classifyLayout(files(
    "package.yaml",
    "channels.yaml",
    "datastores.yaml",
    "bpmn/orders/checkout.bpmn",
    "rules/limits.dmn",
    "rules/eu/fields.srl",
    "scripts/derive.xsl",
    "templates/eu/invoices/invoice.hbs",
    "migrations/accounts/V2__index.sql",
    "migrations/accounts/V001__accounts.sql",
    "coverage/e2e.yaml",
    "coverage/eu/settlement.yaml",
  ));
  assert.deepEqual(diagnostics, []);
  assert.equal(layout.packageYaml, "package.yaml");
  assert.deepEqual(layout.bpmn, [{
    path: "bpmn/orders/checkout.bpmn",
    key: "orders/checkout.bpmn",
  }]);
  assert.deepEqual(layout.decisions.map((a) => a.key), ["limits.dmn"]);
  assert.deepEqual(layout.rulesets.map((a) => a.key), ["eu/fields.srl"]);
  assert.deepEqual(layout.scripts.map((a) => a.key), ["derive.xsl"]);
  assert.deepEqual(layout.templates.map((a) => a.key), ["eu/invoices/invoice.hbs"]);
  assert.deepEqual(layout.migrations.get("accounts")!.map((m) => [m.version, m.description]), [
    [1, "accounts"],
    [2, "index"],
  ]);
  assert.deepEqual(layout.coverage.map((c) => c.urn), [
    "urn:sutra:coverage:e2e",
    "urn:sutra:coverage:eu:settlement",
  ]);
});

Deno.test("codec folders fold to URNs; a manifest folder owns its edition subfolders", () => {
  const { layout, diagnostics } = classifyLayout(files(
    "package.yaml",
    "schemas/transfer/codec-manifest.yaml",
    "schemas/transfer/transfer.xsd",
    "schemas/hr/employee/codec-manifest.yaml",
    "schemas/hr/employee/employee.xsd",
    "schemas/venue/codec-manifest.yaml",
    "schemas/venue/venue-manifest.yaml",
    "schemas/venue/edition-2024/Header_v1.xsd",
    "schemas/venue/edition-2026/Order_v3.xsd",
    "schemas/loose/only.xsd",
  ));
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(layout.codecs.map((c) => [c.name, c.folder, c.files.length]), [
    ["hr:employee", "schemas/hr/employee", 2],
    ["loose", "schemas/loose", 1],
    ["transfer", "schemas/transfer", 2],
    ["venue", "schemas/venue", 4],
  ]);
});

Deno.test("the reserved first-level 'sutra' folder is refused in every artifact folder, deeper is fine", () => {
  const { layout, diagnostics } = classifyLayout(files(
    "package.yaml",
    "schemas/sutra/codec-manifest.yaml",
    "schemas/sutra/a.xsd",
    "bpmn/Sutra/x.bpmn",
    "templates/sutra/x.hbs",
    "schemas/hr/sutra/codec-manifest.yaml",
    "bpmn/sutra.bpmn",
  ));
  assert.deepEqual(diagnostics.map((d) => [d.code, d.source?.uri]), [
    ["SUTRA.CONFIG.PACKAGE.RESERVED_FOLDER", "bpmn/Sutra"],
    ["SUTRA.CONFIG.PACKAGE.RESERVED_FOLDER", "schemas/sutra"],
    ["SUTRA.CONFIG.PACKAGE.RESERVED_FOLDER", "templates/sutra"],
  ]);
  assert.deepEqual(layout.codecs.map((c) => c.name), ["hr:sutra"]);
  assert.deepEqual(layout.bpmn.map((a) => a.key), ["sutra.bpmn"]);
});

Deno.test("files without a place, loose schemas and misnamed migrations are all reported", () => {
  const { diagnostics } = classifyLayout(files(
    "package.yaml",
    "package.yml",
    "README.md",
    "docs/notes.md",
    "bpmn/flow.xml",
    "rules/table.xlsx",
    "templates/reply.txt",
    "schemas/loose.xsd",
    "migrations/init.sql",
    "migrations/accounts/init.sql",
    "migrations/accounts/V1__a.sql",
    "migrations/accounts/V01__b.sql",
    "coverage/e2e.json",
    "coverage/my routes.yaml",
  ));
  assert.deepEqual(diagnostics.map((d) => [d.code, d.source?.uri]), [
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "README.md"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "bpmn/flow.xml"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "coverage/e2e.json"],
    ["SUTRA.CONFIG.PACKAGE.FOLDER_NAME_INVALID", "coverage/my routes.yaml"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "docs/notes.md"],
    ["SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID", "migrations/accounts/init.sql"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "migrations/init.sql"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "package.yml"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "rules/table.xlsx"],
    ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "schemas/loose.xsd"],
    ["SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED", "templates/reply.txt"],
    ["SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID", "migrations/accounts/V1__a.sql"],
  ]);
  assert.match(
    diagnostics.find((d) => d.source?.uri === "package.yml")!.message,
    /name it package\.yaml/,
  );
});
