import assert from "node:assert/strict";
import { type Codec, codecs, decoded, type SchemaFolder, schemaKinds } from "../core/codec.ts";
import { diagnostic } from "../core/diagnostic.ts";
import { buildPackageCodecs, PackageCodecs } from "./codecs.ts";
import { classifyLayout } from "./layout.ts";

// Two schema kinds standing in for real ones: the package side only reads
// `schemaKind`, hands the folder over and keeps what comes back.
const seen: SchemaFolder[] = [];
function codec(name: string, types: string[]): Codec {
  return {
    name,
    contentTypes: ["application/test"],
    decode: () => Promise.resolve(decoded({})),
    messageTypes: () => types,
    shapeOf: (
      t,
    ) => (t === undefined || types.includes(t)
      ? { kind: "record", fields: { id: { kind: "scalar", type: "string" } } }
      : undefined),
    encode: () =>
      Promise.resolve({ ok: true, bytes: new Uint8Array(), contentType: "application/test" }),
  };
}
if (!schemaKinds.has("pkg-test-folder")) {
  schemaKinds.register({
    name: "pkg-test-folder",
    bundle: false,
    build(folder) {
      seen.push(folder);
      if (folder.files.size === 0) {
        return Promise.resolve({
          diagnostics: [
            diagnostic("SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "empty", {
              source: { uri: folder.path },
            }),
          ],
        });
      }
      return Promise.resolve({ codec: codec(folder.urn, ["Order"]) });
    },
  });
  schemaKinds.register({
    name: "pkg-test-bundle",
    bundle: true,
    build: (folder) => Promise.resolve({ codec: codec(folder.urn, ["Wrapped"]) }),
  });
  codecs.register(codec("urn:sutra:codec:pkg-test-global", []));
}

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("codec folders are built by the schema kind their manifest names", async () => {
  const files = new Map([
    [
      "schemas/hr/employee/codec-manifest.yaml",
      enc("schemaKind: pkg-test-folder\nformats: [xml]\n"),
    ],
    ["schemas/hr/employee/employee.xsd", enc("<xs:schema/>")],
    ["schemas/hr/employee/types/common.xsd", enc("<xs:schema/>")],
    ["schemas/pkg-test-global/codec-manifest.yaml", enc("schemaKind: pkg-test-bundle\n")],
  ]);
  const { layout } = classifyLayout(files);
  const built = await buildPackageCodecs(files, layout.codecs);
  assert.deepEqual(built.diagnostics, []);
  assert.deepEqual(built.codecs.map((c) => [c.folder, c.urn, c.kind, c.codec?.name]), [
    ["schemas/hr/employee", "urn:hr:employee", "pkg-test-folder", "urn:hr:employee"],
    [
      "schemas/pkg-test-global",
      "urn:sutra:codec:pkg-test-global",
      "pkg-test-bundle",
      "urn:sutra:codec:pkg-test-global",
    ],
  ]);
  const folder = seen.find((f) => f.urn === "urn:hr:employee")!;
  assert.deepEqual(folder.manifest, { schemaKind: "pkg-test-folder", formats: ["xml"] });
  assert.deepEqual([...folder.files.keys()].sort(), ["employee.xsd", "types/common.xsd"]);

  // The package's bundle shadows the global codec of the same URN.
  const resolved = new PackageCodecs(built.codecs);
  assert.deepEqual(resolved.codec("urn:sutra:codec:pkg-test-global")?.messageTypes(), ["Wrapped"]);
  assert.equal(resolved.declares("urn:hr:employee"), true);
  assert.equal(resolved.declares("urn:nothing"), false);
  const shapes = resolved.shapes([{
    index: 0,
    name: "hr",
    transport: "http",
    codec: "urn:hr:employee",
    broadcast: false,
    singleton: false,
  }]);
  assert.deepEqual(shapes.payload!("hr", "Order"), {
    kind: "record",
    fields: { id: { kind: "scalar", type: "string" } },
  });
  assert.equal(shapes.payload!("other", "Order"), undefined);
});

Deno.test("missing, malformed and unknown-kind manifests, nested manifests and kind errors are all reported", async () => {
  const files = new Map([
    ["schemas/a/a.xsd", enc("x")],
    ["schemas/b/codec-manifest.yaml", enc("formats: [xml]\n")],
    ["schemas/b/b.xsd", enc("x")],
    ["schemas/c/codec-manifest.yaml", enc("schemaKind: protobuf\n")],
    ["schemas/d/codec-manifest.yaml", enc("schemaKind: pkg-test-folder\n")],
    ["schemas/e/codec-manifest.yaml", enc("schemaKind: pkg-test-folder\n")],
    ["schemas/e/e.xsd", enc("x")],
    ["schemas/e/inner/codec-manifest.yaml", enc("schemaKind: pkg-test-folder\n")],
    ["schemas/f/codec-manifest.yaml", enc("schemaKind: [x\n")],
  ]);
  const { layout } = classifyLayout(files);
  const built = await buildPackageCodecs(files, layout.codecs);
  assert.deepEqual(built.diagnostics.map((d) => [d.code, d.source?.uri, d.source?.line]), [
    ["SUTRA.CONFIG.CODEC_MANIFEST.MISSING", "schemas/a", undefined],
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/b/codec-manifest.yaml", 1],
    ["SUTRA.CONFIG.CODEC_MANIFEST.INVALID", "schemas/c/codec-manifest.yaml", 1],
    ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "schemas/d", undefined],
    ["SUTRA.CONFIG.CODEC_LAYOUT.INVALID", "schemas/e/inner/codec-manifest.yaml", undefined],
    ["SUTRA.CONFIG.YAML.SYNTAX", "schemas/f/codec-manifest.yaml", 2],
  ]);
  assert.match(
    built.diagnostics[2].message,
    /schemaKind 'protobuf' is not linked in this build \(linked: .*pkg-test-folder/,
  );
  // Folders that did not build are still declared, so references to them do not cascade.
  assert.equal(new PackageCodecs(built.codecs).declares("urn:a"), true);
});
