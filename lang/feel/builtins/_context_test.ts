import assert from "node:assert/strict";
import { show, showNamed } from "./_testing.ts";

Deno.test("get value and get entries", () => {
  assert.equal(show("get value", { key1: "value1" }, "key1"), '"value1"');
  assert.equal(show("get value", { key1: "value1" }, "nope"), "null");
  assert.equal(show("get value", { a: { b: 1 } }, ["a", "b"]), "1");
  assert.equal(show("get value", 1, "a"), "null");
  assert.equal(
    show("get entries", { a: "foo", b: "bar" }),
    '[{key: "a", value: "foo"}, {key: "b", value: "bar"}]',
  );
  assert.equal(show("get entries", {}), "[]");
  assert.equal(showNamed("get entries", { m: { a: 1 } }), '[{key: "a", value: 1}]');
  assert.equal(showNamed("get entries", { map: { a: 1 } }), "null");
});

Deno.test("context() builds a context from key/value entries", () => {
  assert.equal(
    show("context", [{ key: "a", value: 1 }, { key: "b", value: 2, other: 0 }]),
    "{a: 1, b: 2}",
  );
  assert.equal(show("context", { key: "a", value: null }), "{a: null}");
  assert.equal(show("context", [{ key: "a", value: 1 }, { key: "a", value: 2 }]), "null");
  assert.equal(show("context", { key: "a" }), "null");
  assert.equal(show("context", { key: null, value: 1 }), "null");
  assert.equal(show("context", []), "{}");
  assert.equal(showNamed("context", { entries: { key: "a", value: 1 } }), "{a: 1}");
});

Deno.test("context put by key or key path, leaving the original untouched", () => {
  assert.equal(show("context put", { x: 1, y: 0, z: 0 }, "y", 2), "{x: 1, y: 2, z: 0}");
  assert.equal(show("context put", { x: 1 }, "y", 2), "{x: 1, y: 2}");
  assert.equal(show("context put", { x: 1, y: { a: 0 } }, ["y", "a"], 2), "{x: 1, y: {a: 2}}");
  assert.equal(
    show("context put", { x: 1, y: { a: 0 } }, ["y", "b"], 2),
    "{x: 1, y: {a: 0, b: 2}}",
  );
  assert.equal(show("context put", { x: 1, y: { a: 0 } }, ["y", "a", "b"], 2), "null");
  assert.equal(show("context put", { x: 1 }, [], 2), "null");
  assert.equal(show("context put", { x: 1 }, ["y", null], 2), "null");
  assert.equal(show("context put", {}, null, 1), "null");
  assert.equal(show("context put", {}, 1, 1), "null");
  assert.equal(showNamed("context put", { context: {}, keys: ["a"], value: 1 }), "{a: 1}");
  assert.equal(showNamed("context put", { context: {}, key: ["a", "b"], value: 1 }), "null");
});

Deno.test("context merge overrides earlier entries", () => {
  assert.equal(show("context merge", [{ x: 1, y: 0 }, { y: 2 }]), "{x: 1, y: 2}");
  assert.equal(show("context merge", { a: 1 }), "{a: 1}");
  assert.equal(show("context merge", [{ a: 1 }, 2]), "null");
  assert.equal(showNamed("context merge", { contexts: [{ a: 1 }] }), "{a: 1}");
  assert.equal(showNamed("context merge", { context: [{ a: 1 }] }), "null");
});

Deno.test("not() is ternary", () => {
  assert.equal(show("not", true), "false");
  assert.equal(show("not", null), "null");
  assert.equal(show("not", 1), "null");
  assert.equal(showNamed("not", { negand: false }), "true");
});
