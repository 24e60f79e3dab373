/**
 * One package per projection diagnostic: the book's accounts example (which
 * lints clean) with one thing changed, asserting the code and the text.
 */
import "../../io/codecs/mod.ts";
import "../../io/transports/mod.ts";
import assert from "node:assert/strict";
import type { Diagnostic } from "../../engine/core/diagnostic.ts";
import { transports } from "../../engine/core/transport.ts";
import { projectionRefusals } from "../../engine/datastore/mod.ts";
import { checkPackage } from "../../engine/package/mod.ts";

const XSD = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:element name="AccountRecord">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="accountId" type="AccountId"/>
        <xs:element name="balance"   type="Money"/>
        <xs:element name="openedAt"  type="xs:date"/>
        <xs:element name="active"    type="xs:boolean"/>
        <xs:element name="note"      type="Note" minOccurs="0"/>
        EXTRA
      </xs:sequence>
    </xs:complexType>
  </xs:element>
  <xs:simpleType name="AccountId">
    <xs:restriction base="xs:string"><xs:maxLength value="35"/></xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="Money">
    <xs:restriction base="xs:decimal">
      <xs:totalDigits value="18"/><xs:fractionDigits value="2"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="Note">
    <xs:restriction base="xs:string"><xs:maxLength value="140"/></xs:restriction>
  </xs:simpleType>
</xs:schema>
`;

const DDL = `CREATE TABLE IF NOT EXISTS accounts (
  store_key   VARCHAR(512)  NOT NULL,
  account_id  VARCHAR(35)   NOT NULL,
  balance     NUMERIC(18,2) NOT NULL DEFAULT 0,
  opened_at   DATE          NOT NULL,
  active      BOOLEAN       NOT NULL DEFAULT TRUE,
  note        VARCHAR(140),              -- the optional field's column admits NULL
  rev         BIGINT        NOT NULL DEFAULT 1,
  updated_at  TIMESTAMPTZ   NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (store_key)                -- the store key, never a declared field
);

CREATE INDEX IF NOT EXISTS accounts_opened_at ON accounts (opened_at);
`;

const STORES = `datastores:
  - name: accounts
    type: sql
    structure:
      schema: urn:accounts
      type: AccountRecord
      COLUMNS
    sql:
      url-ref: env:ACCOUNTS_DB_URL
      migrations: migrations/accounts
    dataClass: financial
`;

interface Variant {
  readonly xsd?: (x: string) => string;
  readonly ddl?: string;
  readonly more?: Record<string, string>;
  readonly columns?: string;
  readonly manifest?: string;
}

function files(v: Variant = {}): Map<string, Uint8Array> {
  const text: Record<string, string> = {
    "package.yaml": "labels:\n  tenant: default\n  module: ledger\n  version: 1.0.0\n",
    "datastores.yaml": STORES.replace("COLUMNS", v.columns ?? ""),
    "schemas/accounts/codec-manifest.yaml": v.manifest ?? "schemaKind: xsd\nformats: [xml]\n",
    "migrations/accounts/V001__accounts.sql": v.ddl ?? DDL,
    ...v.more,
  };
  if (v.manifest === undefined) {
    text["schemas/accounts/accounts.xsd"] = (v.xsd ?? ((x) => x))(XSD).replace("EXTRA", "");
  }
  return new Map(Object.entries(text).map(([k, t]) => [k, new TextEncoder().encode(t)]));
}

async function storeFindings(v: Variant = {}): Promise<Diagnostic[]> {
  const checked = await checkPackage(files(v), { transports });
  return checked.diagnostics.filter((d) => d.code.startsWith("SUTRA.CONFIG.DATASTORE."));
}

async function only(v: Variant): Promise<Diagnostic> {
  const found = await storeFindings(v);
  assert.equal(found.length, 1, found.map((d) => `${d.code} ${d.message}`).join("\n"));
  return found[0];
}

const extra = (element: string) => (x: string) => x.replace("EXTRA", element);

Deno.test("the book's accounts example lints clean", async () => {
  assert.deepEqual(await storeFindings(), []);
});

Deno.test("STRUCTURE_NOT_FLAT names the nested child", async () => {
  const d = await only({
    xsd: extra(
      `<xs:element name="owner"><xs:complexType><xs:sequence>` +
        `<xs:element name="name" type="xs:string"/></xs:sequence></xs:complexType></xs:element>`,
    ),
  });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.STRUCTURE_NOT_FLAT");
  assert.equal(
    d.message,
    "data store 'accounts': type 'AccountRecord' cannot be projected onto columns because its " +
      "child 'owner' is a nested record; flatten it into scalar fields, or drop the 'structure' " +
      "block to keep a key/value store",
  );
});

Deno.test("COLUMN_NAME_INVALID names the field and the fix", async () => {
  const d = await only({ xsd: extra(`<xs:element name="order" type="xs:int"/>`) });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.COLUMN_NAME_INVALID");
  assert.equal(
    d.message,
    "data store 'accounts': field 'order': its column 'order' is a reserved SQL word; name " +
      "another column under 'columns'",
  );
});

Deno.test("an unknown structure type is INVALID", async () => {
  const found = await storeFindings({
    xsd: (x) => x.replace('name="AccountRecord"', 'name="Acct"'),
  });
  assert.deepEqual(found.map((d) => [d.code, d.message]), [[
    "SUTRA.CONFIG.DATASTORE.INVALID",
    "data store 'accounts': 'urn:accounts' declares no record element or complex type " +
    "'AccountRecord'",
  ]]);
});

Deno.test("a binary field is STRUCTURE_UNSUPPORTED", async () => {
  const d = await only({ xsd: extra(`<xs:element name="attachment" type="xs:base64Binary"/>`) });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.STRUCTURE_UNSUPPORTED");
  assert.equal(
    d.message,
    "data store 'accounts' cannot project type 'AccountRecord': field 'attachment' is declared " +
      "'base64Binary', and a projected column does not carry binary values in this release; " +
      "declare it as a string, or remove the 'structure' block",
  );
});

Deno.test("a JSON-Schema structure: lint warns DDL_UNVERIFIABLE, the engine refuses it", async () => {
  const v: Variant = {
    manifest: "schemaKind: json-schema\n",
    more: {
      "schemas/accounts/AccountRecord.json": JSON.stringify({
        $id: "AccountRecord",
        type: "object",
        properties: { balance: { type: "number" } },
      }),
    },
  };
  const d = await only(v);
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE");
  assert.equal(d.severity, "WARNING");
  assert.match(
    d.message,
    /^store 'accounts': its structure schema 'urn:accounts' is a json-schema codec/,
  );
  const checked = await checkPackage(files(v), { transports });
  const refused = projectionRefusals(checked.package.stores.entries!, checked.package);
  assert.deepEqual(refused.map((r) => r.code), ["SUTRA.CONFIG.DATASTORE.STRUCTURE_UNSUPPORTED"]);
  assert.equal(
    refused[0].message,
    "data store 'accounts' declares its structure in 'urn:accounts', which is not an XSD codec " +
      "of this package (it is json-schema): only a schemas/<folder> XSD codec declares the " +
      "fields and facets a typed column is checked against; declare the type in an XSD, or " +
      "remove the 'structure' block",
  );
});

Deno.test("COLUMN_MISSING names a missing control column and a missing field column", async () => {
  const found = await storeFindings({
    ddl: DDL.replace(/ +updated_at .*\n/, "").replace(/ +note .*\n/, ""),
  });
  assert.deepEqual(found.map((d) => [d.code, d.message]), [
    [
      "SUTRA.CONFIG.DATASTORE.COLUMN_MISSING",
      "store 'accounts': table 'accounts' has no control column 'updated_at' (every projected " +
      "table needs store_key, rev and updated_at)",
    ],
    [
      "SUTRA.CONFIG.DATASTORE.COLUMN_MISSING",
      "store 'accounts': field 'note' has no column 'note' in table 'accounts'",
    ],
  ]);
  assert.deepEqual(found[0].source, {
    uri: "migrations/accounts/V001__accounts.sql",
    line: 1,
  });
});

Deno.test("a column of another type family is COLUMN_TYPE_MISMATCH", async () => {
  const d = await only({ ddl: DDL.replace("DATE          NOT NULL", "VARCHAR(10) NOT NULL") });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.COLUMN_TYPE_MISMATCH");
  assert.equal(
    d.message,
    "store 'accounts': column 'opened_at' is VARCHAR(10), which cannot hold field 'openedAt' " +
      "(xs:date); expected a date column",
  );
  assert.equal(d.source?.line, 5);
});

Deno.test("a column narrower than the facets is COLUMN_FACET_MISMATCH", async () => {
  const found = await storeFindings({
    ddl: DDL.replace("VARCHAR(35)", "VARCHAR(20)").replace("NUMERIC(18,2)", "NUMERIC(12,2)"),
  });
  assert.deepEqual(found.map((d) => [d.code, d.message]), [
    [
      "SUTRA.CONFIG.DATASTORE.COLUMN_FACET_MISMATCH",
      "store 'accounts': column 'account_id' is VARCHAR(20), narrower than field 'accountId' " +
      "admits: maxLength 35 needs at least 35 characters",
    ],
    [
      "SUTRA.CONFIG.DATASTORE.COLUMN_FACET_MISMATCH",
      "store 'accounts': column 'balance' is NUMERIC(12,2), narrower than field 'balance' " +
      "admits: totalDigits 18 with fractionDigits 2 needs 16 digits before the point",
    ],
  ]);
});

Deno.test("an optional field on a NOT NULL column is COLUMN_NULLABILITY", async () => {
  const d = await only({ ddl: DDL.replace("VARCHAR(140),", "VARCHAR(140) NOT NULL,") });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.COLUMN_NULLABILITY");
  assert.equal(
    d.message,
    "store 'accounts': field 'note' is optional, but column 'note' is NOT NULL; an absent " +
      "field is written as NULL",
  );
});

Deno.test("a business primary key is KEY_MISMATCH", async () => {
  const d = await only({ ddl: DDL.replace("PRIMARY KEY (store_key)", "PRIMARY KEY (account_id)") });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.KEY_MISMATCH");
  assert.equal(
    d.message,
    "store 'accounts': the primary key of table 'accounts' is (account_id); it must be " +
      "(store_key) alone, so one store key is one row",
  );
});

Deno.test("ALTER TABLE is replayed in version order", async () => {
  const found = await storeFindings({
    ddl: DDL.replace(/ +note .*\n/, ""),
    more: {
      "migrations/accounts/V002__note.sql": "ALTER TABLE accounts ADD COLUMN note VARCHAR(100);\n" +
        "ALTER TABLE accounts ALTER COLUMN note TYPE VARCHAR(140);",
      "migrations/accounts/V003__rename.sql":
        "ALTER TABLE accounts RENAME COLUMN active TO enabled;",
    },
    columns: "columns: {active: enabled}",
  });
  assert.deepEqual(found, []);
});

Deno.test("DDL outside the subset is DDL_UNVERIFIABLE, never a column error", async () => {
  const d = await only({
    ddl: "CREATE OR REPLACE FUNCTION f() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$ " +
      "LANGUAGE plpgsql;\nCREATE TABLE accounts (store_key TEXT PRIMARY KEY);",
  });
  assert.equal(d.code, "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE");
  assert.equal(d.severity, "WARNING");
  assert.equal(
    d.message,
    "store 'accounts': migrations/accounts/V001__accounts.sql could not be fully parsed (line " +
      "1: the statement CREATE OR REPLACE FUNCTION … is outside the parsed subset), so the " +
      "table shape was not derived and the declared structure was not verified; no column " +
      "diagnostic is raised for this store (it may be valid; it is simply not provable here)",
  );
});

Deno.test("several candidate tables and an uncompared column type are DDL_UNVERIFIABLE", async () => {
  const several = await only({
    ddl: DDL.replaceAll("accounts", "ledger") + "CREATE TABLE audit (id INT);",
  });
  assert.equal(several.code, "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE");
  assert.match(
    several.message,
    /the migrations create several tables \(ledger, audit\) and none is named 'accounts'; name the projected one with sql.table, so the table shape was not derived/,
  );
  const uuid = await only({ ddl: DDL.replace("VARCHAR(35)", "UUID") });
  assert.equal(uuid.code, "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE");
  assert.equal(
    uuid.message,
    "store 'accounts': the types of 'account_id' (UUID is not a compared column type) were not " +
      "compared, the column exists; only its type comparison is withheld",
  );
});
