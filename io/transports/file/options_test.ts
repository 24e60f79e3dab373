import assert from "node:assert/strict";
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import { contentTypeOf, fileChannelOptions, globPattern, isPartialName } from "./options.ts";

const channel = (options: Record<string, unknown>) => ({
  name: "orders",
  transport: "file",
  options,
});

Deno.test("defaults: folders inside the directory, one-second poll, every name", () => {
  const options = fileChannelOptions(channel({ directory: "spool/in" }), "/srv");
  assert.ok(!Array.isArray(options));
  assert.equal(options.directory, "/srv/spool/in");
  assert.equal(options.processing, "/srv/spool/in/processing");
  assert.equal(options.done, "/srv/spool/in/done");
  assert.equal(options.failed, "/srv/spool/in/failed");
  assert.equal(options.pollMs, 1000);
  assert.ok(options.pattern.test("anything.bin"));
});

Deno.test("every bad option is reported at once, naming the channel and the option", () => {
  const problems = fileChannelOptions(
    channel({ "poll-interval": "soon", pattern: "a/*", "content-type": "json", color: "red" }),
    "/srv",
  ) as Diagnostic[];
  assert.ok(Array.isArray(problems));
  assert.deepEqual(
    problems.map((p) => [p.code, p.attributes?.channel, p.attributes?.option]),
    [
      ["SUTRA.FILE.OPTIONS_INVALID", "orders", "color"],
      ["SUTRA.FILE.OPTIONS_INVALID", "orders", "directory"],
      ["SUTRA.FILE.OPTIONS_INVALID", "orders", "poll-interval"],
      ["SUTRA.FILE.OPTIONS_INVALID", "orders", "pattern"],
      ["SUTRA.FILE.OPTIONS_INVALID", "orders", "content-type"],
    ],
  );
  assert.match(problems[1].message, /file channel 'orders': option 'directory' is required/);
});

Deno.test("folders must differ from the directory and from each other", () => {
  const problems = fileChannelOptions(
    channel({ directory: "/in", done: ".", failed: "/in/x", processing: "x" }),
  );
  assert.ok(Array.isArray(problems));
  assert.deepEqual(problems.map((p) => p.attributes?.option), ["done", "processing"]);
});

Deno.test("a glob matches whole names; ? is one character", () => {
  assert.ok(globPattern("*.json").test("a.json"));
  assert.ok(!globPattern("*.json").test("a.json.bak"));
  assert.ok(globPattern("order-?.xml").test("order-1.xml"));
  assert.ok(!globPattern("order-?.xml").test("order-12.xml"));
  assert.ok(!globPattern("a.b").test("axb"));
});

Deno.test("the content type comes from the channel, else the extension, else bytes", () => {
  const base = fileChannelOptions(channel({ directory: "/in" }));
  const typed = fileChannelOptions(channel({ directory: "/in", "content-type": "text/csv" }));
  assert.ok(!Array.isArray(base) && !Array.isArray(typed));
  assert.equal(contentTypeOf(base, "a.XML"), "application/xml");
  assert.equal(contentTypeOf(base, "a.json"), "application/json");
  assert.equal(contentTypeOf(base, "a"), "application/octet-stream");
  assert.equal(contentTypeOf(typed, "a.json"), "text/csv");
});

Deno.test("dot-files and .tmp/.part names are partial", () => {
  for (const name of [".a.json", "a.json.tmp", "a.json.PART"]) assert.ok(isPartialName(name), name);
  for (const name of ["a.json", "tmp.json", "a.partial"]) assert.ok(!isPartialName(name), name);
});
