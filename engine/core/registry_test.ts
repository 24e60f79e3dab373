import assert from "node:assert/strict";
import { Registry } from "./registry.ts";

Deno.test("registries list what was linked, sorted by name, whatever the import order", () => {
  const r = new Registry<{ name: string; n: number }>("codec");
  r.register({ name: "yaml", n: 1 });
  r.register({ name: "csv", n: 2 });
  r.register({ name: "json", n: 3 });
  assert.deepEqual(r.names(), ["csv", "json", "yaml"]);
  assert.equal(r.get("json")?.n, 3);
  assert.equal(r.get("xml"), undefined);
  assert.throws(() => r.register({ name: "csv", n: 4 }), /codec 'csv' is registered twice/);
});
