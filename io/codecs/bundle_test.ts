import assert from "node:assert/strict";
import type { SchemaFolder } from "../../engine/core/codec.ts";
import { buildCodec, buildErrors, fixtureFiles } from "./_testing.ts";
import { wrapperBundleKind, type WrapperProfile } from "./bundle.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

const PING_XSD =
  `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:venue:ping">
  <xs:element name="StatusPing"><xs:complexType><xs:attribute name="seq" type="xs:int" use="required"/></xs:complexType></xs:element>
</xs:schema>`;

const PROFILE: WrapperProfile = {
  wrappers: {
    OrderConfirmation: { namespace: "urn:venue:confirm", directions: ["incoming", "outgoing"] },
    ShipmentNotice: { namespace: "urn:venue:notice", directions: ["outgoing"] },
    StatusPing: { namespace: "urn:venue:ping", directions: ["incoming"] },
  },
  base: { files: new Map([["ping.xsd", bytes(PING_XSD)]]), wrappers: { StatusPing: "ping.xsd" } },
};
const kind = wrapperBundleKind({ name: "acme-venue", profile: PROFILE });

async function venue(
  change: (files: Map<string, Uint8Array>) => void = () => {},
): Promise<SchemaFolder> {
  const files = await fixtureFiles("schemas/venue");
  change(files);
  return {
    path: "schemas/venue",
    urn: "urn:sutra:codec:venue",
    manifest: { schemaKind: "acme-venue" },
    files,
  };
}

Deno.test("bundle: the manifest picks the edition backing each wrapper", async () => {
  const codec = await buildCodec(kind, await venue());
  assert.equal(kind.bundle, true);
  assert.deepEqual(codec.messageTypes(), ["OrderConfirmation", "ShipmentNotice", "StatusPing"]);
  const ok = await codec.decode(
    bytes(
      '<OrderConfirmation xmlns="urn:venue:confirm"><ref>R123</ref><confirmedQty>4</confirmedQty></OrderConfirmation>',
    ),
  );
  assert.deepEqual(ok, {
    outcome: "OK",
    messageType: "OrderConfirmation",
    payload: { ref: "R123", confirmedQty: 4 },
    issues: [],
  });
  // The 2024 edition would accept this; the archive pins 2026.
  const old = await codec.decode(
    bytes('<OrderConfirmation xmlns="urn:venue:confirm"><ref>R1</ref></OrderConfirmation>'),
  );
  assert.equal(old.outcome, "SOFT_ERRORS");
  assert.deepEqual(old.issues.map((i) => i.path), ["/ref", ""]);
});

Deno.test("bundle: an unlisted wrapper falls back to the profile's base schema", async () => {
  const codec = await buildCodec(kind, await venue());
  const ping = await codec.decode(bytes('<StatusPing xmlns="urn:venue:ping" seq="x"/>'));
  assert.equal(ping.outcome, "SOFT_ERRORS");
  assert.deepEqual(ping.issues.map((i) => [i.path, i.value]), [["/seq", "x"]]);
  const outgoingOnly = await codec.decode(
    bytes('<ShipmentNotice xmlns="urn:venue:notice"><carrier>x</carrier></ShipmentNotice>'),
  );
  assert.equal(outgoingOnly.issues[0].code, "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED");
  const notice = await codec.encode({ carrier: "ACME" }, { messageType: "ShipmentNotice" });
  assert.ok(notice.ok);
  const wrongNamespace = await codec.decode(bytes('<OrderConfirmation xmlns="urn:other"/>'));
  assert.equal(wrongNamespace.issues[0].code, "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED");
});

Deno.test("bundle: deploy-time errors are fail-closed, each one reported", async () => {
  const manifest = (text: string) => (files: Map<string, Uint8Array>) =>
    files.set("acme-venue-manifest.yaml", bytes(text));
  const cases: [(files: Map<string, Uint8Array>) => void, string[], RegExp][] = [
    [
      (f) => f.delete("acme-venue-manifest.yaml"),
      ["SUTRA.CONFIG.CODEC_MANIFEST.MISSING"],
      /acme-venue-manifest/,
    ],
    [
      manifest("incoming:\n  Mystery: a.xsd\n"),
      ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID"],
      /not a acme-venue wrapper/,
    ],
    [manifest("incoming:\n  ShipmentNotice: edition-2024/ShipmentNotice_v2.xsd\n"), [
      "SUTRA.CONFIG.CODEC_MANIFEST.INVALID",
    ], /never travels/],
    [manifest("incoming:\n  OrderConfirmation: edition-2030/gone.xsd\n"), [
      "SUTRA.CONFIG.SCHEMA.INVALID",
    ], /does not exist/],
    [manifest("outgoing:\n  OrderConfirmation: edition-2024/ShipmentNotice_v2.xsd\n"), [
      "SUTRA.CONFIG.SCHEMA.INVALID",
    ], /namespace 'urn:venue:confirm'/],
    [manifest("sideways: {}\n"), ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID"], /unknown key 'sideways'/],
    [(f) => f.delete("shared/ref.xsd"), [
      "SUTRA.CONFIG.SCHEMA.INVALID",
      "SUTRA.CONFIG.SCHEMA.INVALID",
    ], /shared\/ref.xsd/],
  ];
  for (const [change, codes, message] of cases) {
    const found = await buildErrors(kind, await venue(change));
    assert.deepEqual(found.map((d) => d.code), codes, JSON.stringify(found));
    assert.match(found[0].message, message);
  }
});
