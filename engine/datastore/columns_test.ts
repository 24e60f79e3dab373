import assert from "node:assert/strict";
import { foldColumnName, planColumns, type StructureField, structureFieldsOf } from "./columns.ts";

const scalar = (...names: string[]): StructureField[] =>
  names.map((name) => ({ name, kind: "scalar" }));

Deno.test("field names fold to snake_case ASCII columns", () => {
  assert.equal(foldColumnName("openedAt"), "opened_at");
  assert.equal(foldColumnName("accountId"), "account_id");
  assert.equal(foldColumnName("IBANCode"), "iban_code");
  assert.equal(foldColumnName("line2Amount"), "line2_amount");
  assert.equal(foldColumnName("crédit-Limite"), "credit_limite");
  assert.equal(foldColumnName("a..b  c"), "a_b_c");
  assert.equal(foldColumnName("__x__"), "x");
});

Deno.test("a flat type with conventional names plans one column per field", () => {
  const plan = planColumns({
    store: "accounts",
    type: "AccountRecord",
    fields: scalar("accountId", "balance", "openedAt", "active", "note"),
    columns: { openedAt: "opened_on" },
  });
  assert.deepEqual(plan.diagnostics, []);
  assert.deepEqual([...plan.columns], [
    ["accountId", "account_id"],
    ["balance", "balance"],
    ["openedAt", "opened_on"],
    ["active", "active"],
    ["note", "note"],
  ]);
});

Deno.test("nested and repeated children are not flat, each named", () => {
  const plan = planColumns({
    store: "accounts",
    type: "AccountRecord",
    fields: [
      { name: "balance", kind: "scalar" },
      { name: "owner", kind: "nested" },
      { name: "tags", kind: "repeated" },
    ],
  });
  assert.deepEqual(plan.diagnostics.map((d) => [d.code, d.attributes?.field]), [
    ["SUTRA.CONFIG.DATASTORE.STRUCTURE_NOT_FLAT", "owner"],
    ["SUTRA.CONFIG.DATASTORE.STRUCTURE_NOT_FLAT", "tags"],
  ]);
  assert.match(plan.diagnostics[0].message, /child 'owner' is a nested record/);
  assert.equal(plan.columns.size, 0);
});

Deno.test("every unusable column name is reported with its reason", () => {
  const plan = planColumns({
    store: "s",
    type: "T",
    fields: scalar("order", "rev", "updatedAt", "aB", "a_b", "x".repeat(64), "€", "ok", "fine"),
    columns: { ok: "Bad Name", fine: "select", ghost: "g" },
  });
  const byField = new Map(plan.diagnostics.map((d) => [d.attributes?.field, d.message]));
  assert.ok(plan.diagnostics.every((d) => d.code === "SUTRA.CONFIG.DATASTORE.COLUMN_NAME_INVALID"));
  assert.match(byField.get("order")!, /'order' is a reserved SQL word/);
  assert.match(byField.get("rev")!, /'rev' is a control column/);
  assert.match(byField.get("updatedAt")!, /'updated_at' is a control column/);
  assert.match(byField.get("a_b")!, /'a_b' is also the column of field 'aB'/);
  assert.match(byField.get("x".repeat(64))!, /longer than 63 characters/);
  assert.match(byField.get("€")!, /not a plain lower-case SQL identifier/);
  assert.match(byField.get("ok")!, /'columns' entry 'Bad Name' is not a plain/);
  assert.match(byField.get("fine")!, /'columns' entry 'select' is a reserved SQL word/);
  assert.match(byField.get("ghost")!, /maps field 'ghost', which type 'T' does not declare/);
  assert.equal(plan.diagnostics.length, 9);
  assert.equal(plan.columns.size, 0);
});

Deno.test("a schema shape's children are classified in declared order", () => {
  assert.deepEqual(
    structureFieldsOf({
      kind: "record",
      fields: {
        balance: { kind: "scalar", type: "decimal" },
        owner: { kind: "record", fields: { name: { kind: "scalar", type: "string" } } },
        tags: { kind: "list", item: { kind: "scalar", type: "string" } },
        extra: { kind: "any" },
      },
    }),
    [
      { name: "balance", kind: "scalar" },
      { name: "owner", kind: "nested" },
      { name: "tags", kind: "repeated" },
      { name: "extra", kind: "nested" },
    ],
  );
  assert.equal(structureFieldsOf({ kind: "scalar", type: "string" }), undefined);
});
