/**
 * The element tree an XSD decode views and locates violations in is read
 * out of libxml2's parse; here it is checked against the same document read
 * through libxml2-wasm's own node API, so a struct read at a wrong offset
 * (another build of the library) fails here first.
 */
import assert from "node:assert/strict";
import { ParseOption, XmlDocument, type XmlElement } from "libxml2-wasm";
import {
  compileSchema,
  type ParsedElement,
  readDocument,
} from "../../engine/bpmn/xsd_validator.ts";

/** An element as the library's node API reports it, in the tree's own shape. */
function reference(el: XmlElement, inherited: Record<string, string>): ParsedElement {
  const scope = { ...inherited, ...el.nsDeclarations };
  // XPath's text() covers CDATA sections too.
  const text = el.find("text()").map((t) => t.content).join("");
  const children = el.find("*").map((c) => reference(c as XmlElement, scope));
  return {
    uri: el.namespaceUri,
    local: el.name,
    name: el.prefix === "" ? el.name : `${el.prefix}:${el.name}`,
    attrs: el.attrs.map((a) => ({ uri: a.namespaceUri, local: a.name, value: a.value })),
    children,
    text,
    scope,
    line: el.line,
    tagEndLine: el.line,
  };
}

function referenceOf(document: string): ParsedElement {
  const doc = XmlDocument.fromString(document, {
    option: ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE,
  });
  try {
    return reference(doc.root, {});
  } finally {
    doc.dispose();
  }
}

function treeOf(document: string): ParsedElement {
  const read = readDocument(document, ({ root }) => root);
  assert.ok(read.result, JSON.stringify(read.refused));
  return read.result;
}

async function loadLibrary(): Promise<void> {
  const xsd = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="a"/>' +
    "</xs:schema>";
  const compiled = await compileSchema(new Map([["a.xsd", xsd]]), "a.xsd");
  assert.ok(compiled.schema);
}

const lines = (n: number) => "\n".repeat(n);

const DOCUMENTS: Record<string, string> = {
  "an order": `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:example:orders" channel="web">
  <id>AB-12345</id>
  <amount currency="EUR">1250.75</amount>
  <line><sku>W-1</sku><qty>3</qty></line>
  <line><sku>W-2</sku><qty>4</qty></line>
</Order>`,
  "prefixes, default namespaces and namespaced attributes": `<p:a xmlns:p="urn:p" xmlns="urn:d"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" p:x="1" y="2">
  <b xsi:nil="true"/>
  <p:c xmlns:p="urn:q" xmlns=""><p:d p:z="3"/><e/></p:c>
</p:a>`,
  "references, CDATA, comments and instructions":
    `<a v="1 &amp; 2 &lt; &#x41;&#65;" w='"q"'>one &amp;
<![CDATA[ <two> & ]]><!-- not text --><?pi not text?>three&#x1F600;</a>`,
  "text beyond ASCII, short and long": `<a k="é">é日本😀<b>${"ü".repeat(40)}</b><c>${
    "ascii ".repeat(20)
  }</c><d>${"x".repeat(32)}</d><e>${"y".repeat(33)}</e></a>`,
  "blank and empty content": `<a>   <b></b><c/>\n\t<d> </d></a>`,
  "elements far down the document": `<a>${lines(70_000)}<b\n  x="1"\n>${lines(3)}<c/></b></a>`,
};

Deno.test("xsd tree: libxml2's parse is read as the library's node API reports it", async () => {
  await loadLibrary();
  for (const [name, document] of Object.entries(DOCUMENTS)) {
    assert.deepEqual(treeOf(document), referenceOf(document), name);
  }
});

Deno.test("xsd tree: documents that make libxml2's memory grow are read right, before and after", async () => {
  await loadLibrary();
  const small = DOCUMENTS["an order"];
  // Twenty one-megabyte text nodes: more than the module's memory holds before it grows.
  const large = `<a>${`<b>${"x".repeat(1_000_000)}</b>`.repeat(20)}<c k="v">end</c></a>`;
  assert.deepEqual(treeOf(small), referenceOf(small));
  assert.deepEqual(treeOf(large), referenceOf(large));
  assert.deepEqual(treeOf(small), referenceOf(small));
});
