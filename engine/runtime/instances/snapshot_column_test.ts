import assert from "node:assert/strict";
import { ENGINE_MIGRATIONS, jsonRecords, migrate } from "../../persistence/mod.ts";
import { eachDatabase } from "../../../tests/support/test_database.ts";
import {
  SNAPSHOT_COLUMN,
  snapshotFromColumn,
  snapshotFromParts,
  snapshotParts,
} from "./snapshot_column.ts";

const SNAPSHOTS = {
  ascii: "gen=4\nvar.amount=n:12.5\nvar.note=s:a\\nb\n",
  backslashes: "var.path=s:C:\\\\temp\\\\x\n",
  accented: "var.name=s:Zoë ✓ 名前\n",
  nul: "var.raw=s:a\u0000b\n",
  controls: "var.bell=s:\u0007\u001f\u007f\n",
  empty: "",
};

eachDatabase(
  "every snapshot reads back as the exact text written, as bytes or text",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    // All in one statement, as a group commit writes them: text and hex parts side by side.
    const rows = Object.entries(SNAPSHOTS).map(([id, text]) => ({ id, ...snapshotParts(text) }));
    await db.query(
      `insert into instances (instance_id, deployment_id, process_id, status, snapshot)
       select v.id, 'd', 'p', 'RUNNING', ${snapshotFromParts("v.text", "v.hex")}
       from ${jsonRecords("v", { id: "text", text: "text", hex: "text" }, "$1")}`,
      [rows],
    );
    for (const [id, text] of Object.entries(SNAPSHOTS)) {
      const { rows } = await db.query<{ snapshot: string; raw: Uint8Array }>(
        `select ${SNAPSHOT_COLUMN}, snapshot as raw from instances where instance_id = $1`,
        [id],
      );
      // The column holds the UTF-8 bytes whichever way the snapshot was sent.
      assert.deepEqual(rows[0].raw, new TextEncoder().encode(text), id);
      const read = snapshotFromColumn(rows[0].snapshot);
      assert.equal(typeof read === "string" ? read : new TextDecoder().decode(read), text, id);
    }
  },
);

Deno.test("ASCII snapshots travel as text, others as hex; unescaped text comes back as is", () => {
  assert.deepEqual(snapshotParts(SNAPSHOTS.ascii), { text: SNAPSHOTS.ascii, hex: null });
  assert.deepEqual(snapshotParts(SNAPSHOTS.backslashes).hex, null);
  assert.deepEqual(snapshotParts(SNAPSHOTS.accented).text, null);
  assert.deepEqual(snapshotParts(SNAPSHOTS.nul), {
    text: null,
    hex: "7661722e7261773d733a6100620a",
  });
  assert.equal(snapshotFromColumn("gen=4\n"), "gen=4\n");
  assert.deepEqual(
    snapshotFromColumn("a\\\\b\\000\\303\\251"),
    new Uint8Array([97, 92, 98, 0, 195, 169]),
  );
});
