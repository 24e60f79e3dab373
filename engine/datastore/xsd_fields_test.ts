import assert from "node:assert/strict";
import { XsdFolder } from "./xsd_fields.ts";

const MAIN = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t"
    targetNamespace="urn:t">
  <xs:element name="AccountRecord" type="t:Account"/>
  <xs:complexType name="Account">
    <xs:sequence>
      <xs:element name="accountId" type="t:Id"/>
      <xs:element name="balance">
        <xs:simpleType>
          <xs:restriction base="t:Money"><xs:fractionDigits value="2"/></xs:restriction>
        </xs:simpleType>
      </xs:element>
      <xs:element name="note" type="xs:string" minOccurs="0"/>
      <xs:element name="tags" type="xs:string" maxOccurs="unbounded"/>
      <xs:element name="owner"><xs:complexType><xs:sequence>
        <xs:element name="name" type="xs:string"/>
      </xs:sequence></xs:complexType></xs:element>
      <xs:element ref="t:openedAt"/>
    </xs:sequence>
  </xs:complexType>
  <xs:element name="openedAt" type="xs:dateTime"/>
</xs:schema>`;

// Named simple types may live in another file of the folder.
const TYPES = `<schema xmlns="http://www.w3.org/2001/XMLSchema">
  <simpleType name="Id"><restriction base="string"><maxLength value="35"/></restriction></simpleType>
  <simpleType name="Money"><restriction base="decimal"><totalDigits value="18"/></restriction></simpleType>
</schema>`;

Deno.test("a record's children come with built-ins, facets and optionality", () => {
  const folder = new XsdFolder([MAIN, TYPES]);
  assert.deepEqual(folder.fieldsOf("AccountRecord"), [
    {
      name: "accountId",
      kind: "scalar",
      builtin: "string",
      facets: { maxLength: 35 },
      optional: false,
    },
    {
      name: "balance",
      kind: "scalar",
      builtin: "decimal",
      facets: { totalDigits: 18, fractionDigits: 2 },
      optional: false,
    },
    { name: "note", kind: "scalar", builtin: "string", facets: {}, optional: true },
    { name: "tags", kind: "repeated", facets: {}, optional: false },
    { name: "owner", kind: "nested", facets: {}, optional: false },
    { name: "openedAt", kind: "scalar", builtin: "dateTime", facets: {}, optional: false },
  ]);
  // A global complex type resolves by its own name too.
  assert.equal(folder.fieldsOf("Account")?.length, 6);
  assert.equal(folder.fieldsOf("Missing"), undefined);
  assert.equal(new XsdFolder(["<not xml"]).fieldsOf("AccountRecord"), undefined);
});
