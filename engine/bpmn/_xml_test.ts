import assert from "node:assert/strict";
import { attribute, MAX_XML_DEPTH, parseXml } from "./_xml.ts";

Deno.test("elements keep their namespace, position and raw extent", () => {
  const text =
    `<?xml version="1.0"?>\n<r:root xmlns:r="urn:r" xmlns="urn:d">\n  <child a="1"\n         b="2">t&amp;x<![CDATA[<y>]]></child>\n  <empty/>\n</r:root>`;
  const parsed = parseXml(text);
  assert.ok(parsed.ok);
  const root = parsed.document.root;
  assert.deepEqual([root.uri, root.local, root.line, root.column], ["urn:r", "root", 2, 1]);
  const [child, empty] = root.children;
  assert.deepEqual([child.uri, child.local, child.line, child.column], ["urn:d", "child", 3, 3]);
  assert.equal(child.text, "t&x<y>");
  assert.equal(attribute(child, "b"), "2");
  assert.equal(text.slice(child.start, child.end), text.split("\n").slice(2, 4).join("\n").trim());
  assert.equal(text.slice(child.contentStart, child.contentEnd), "t&amp;x<![CDATA[<y>]]>");
  assert.equal(empty.contentStart, empty.end);
  assert.deepEqual(empty.ns, { r: "urn:r", "": "urn:d" });
});

Deno.test("well-formedness problems come back with their positions", () => {
  const parsed = parseXml(`<a>\n  <b x="1" x="2"/>\n</a>`);
  assert.equal(parsed.ok, false);
  assert.ok(
    !parsed.ok &&
      parsed.problems.some((p) => p.line === 2 && /duplicate attribute/.test(p.message)),
  );
  const empty = parseXml("");
  assert.equal(empty.ok, false);
});

Deno.test("elements nested past the depth limit are one problem at the tag that goes too deep, found at once", () => {
  const open = "<a>".repeat(100_000);
  const text = `<?xml version="1.0"?><!-- <b> <c> -->\n<root x="a>b">${open}${
    "</a>".repeat(100_000)
  }</root>`;
  const r = parseXml(text);
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.deepEqual(r.problems, [{
    message: `elements nest deeper than ${MAX_XML_DEPTH} levels`,
    line: 2,
    column: 15 + 3 * (MAX_XML_DEPTH - 1),
  }]);
  const shallow = parseXml(
    `<root>${"<a/>".repeat(1000)}${"<a>".repeat(200)}${"</a>".repeat(200)}</root>`,
  );
  assert.equal(shallow.ok, true, "siblings and self-closed elements do not add depth");
});
