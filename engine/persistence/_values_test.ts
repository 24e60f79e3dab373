import assert from "node:assert/strict";
import { assertSafeIntegers, OID, parseInt8, parseTimestamp } from "./_values.ts";

Deno.test("timestamps parse from PostgreSQL's ISO text, zone-less ones as UTC", () => {
  const cases: [string, string][] = [
    ["2024-03-04 05:06:07", "2024-03-04T05:06:07.000Z"],
    ["2024-03-04 05:06:07.123456", "2024-03-04T05:06:07.123Z"],
    ["2024-03-04 05:06:07.5+00", "2024-03-04T05:06:07.500Z"],
    ["2024-03-04 05:06:07+05:30", "2024-03-03T23:36:07.000Z"],
    ["2024-03-04 05:06:07-03", "2024-03-04T08:06:07.000Z"],
    ["1883-11-18 12:00:00+00:03:58", "1883-11-18T11:56:02.000Z"],
    ["0044-03-15 12:00:00", "0044-03-15T12:00:00.000Z"],
  ];
  for (const [text, iso] of cases) assert.equal(parseTimestamp(text).toISOString(), iso, text);
  assert.equal(parseTimestamp("0044-03-15 12:00:00 BC").getUTCFullYear(), -43);
  assert.equal(parseTimestamp("infinity").getTime(), 8.64e15);
  assert.equal(parseTimestamp("-infinity").getTime(), -8.64e15);
  assert.ok(Number.isNaN(parseTimestamp("not a time").getTime()));
});

Deno.test("int8 is a number when exact and refused by column otherwise", () => {
  assert.equal(parseInt8("-9007199254740991"), -9007199254740991);
  assert.equal(parseInt8("9007199254740992"), 9007199254740992n);
  const columns = [{ name: "id", type: OID.int8 }, { name: "ids", type: OID.int8Array }];
  assertSafeIntegers([{ id: 1, ids: [2, 3] }], columns);
  assert.throws(() => assertSafeIntegers([{ id: 1, ids: [[4n]] }], columns), /int8 column "ids"/);
  // Columns of other types are not inspected.
  assertSafeIntegers([{ n: 5n }], [{ name: "n", type: 1700 }]);
});
