import assert from "node:assert/strict";
import { readDatastoresYaml } from "../package/datastores_yaml.ts";
import { declarationOf } from "./stores.ts";

Deno.test("a datastores.yaml entry becomes the declaration a provider opens", () => {
  const yaml = `datastores:
  - name: accounts
    type: sql
    dataClass: financial
    sql:
      url-ref: env:ACCOUNTS_DB_URL
      password-ref: secret:accounts-db
      migrations: migrations/accounts
  - name: notes
    type: sql
    sql: {url-ref: env:NOTES_DB_URL, kv-table: notes_kv}
`;
  const read = readDatastoresYaml(new TextEncoder().encode(yaml));
  assert.deepEqual(read.diagnostics, []);
  assert.deepEqual(read.stores!.map((s) => declarationOf(s)), [
    {
      name: "accounts",
      type: "sql",
      settings: {
        "url-ref": "env:ACCOUNTS_DB_URL",
        "password-ref": "secret:accounts-db",
        migrations: "migrations/accounts",
      },
      dataClass: "financial",
    },
    {
      name: "notes",
      type: "sql",
      settings: { "url-ref": "env:NOTES_DB_URL", "kv-table": "notes_kv" },
    },
  ]);
});
