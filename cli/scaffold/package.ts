/**
 * A new package: labels, one HTTP channel bound to the package's own XSD
 * codec with one sample message type, and the validating process of
 * `process.ts` behind it.
 *
 * @module
 */
import { PACKAGE_CONTRACT } from "../../engine/package/mod.ts";
import { envCase, pascalCase } from "./names.ts";
import { processFiles, type ScaffoldFile, type ValidationPolicy } from "./process.ts";

/** The names a scaffolded package is built from. */
export interface PackageScaffold {
  /** The module label, codec folder and process name (`orders`). */
  readonly module: string;
  readonly validation: ValidationPolicy;
}

/** The facts other scaffold pieces (README, smoke script) refer to. */
export interface PackageFacts {
  readonly tenant: string;
  readonly module: string;
  readonly version: string;
  readonly channel: string;
  readonly messageType: string;
  readonly apiKeyEnv: string;
  /** The archive `sutra package` writes. */
  readonly archive: string;
}

/** The facts of the package {@link packageFiles} writes for `s`. */
export function packageFacts(s: PackageScaffold): PackageFacts {
  const tenant = "default";
  const version = "1.0.0";
  return {
    tenant,
    module: s.module,
    version,
    channel: `${s.module}-request`,
    messageType: `${pascalCase(s.module)}Request`,
    apiKeyEnv: `${envCase(s.module)}_API_KEY`,
    archive: `${tenant}--${s.module}--${version}.sutra`,
  };
}

/** An HTTP channel declaration (one `channels:` list item). */
export function httpChannelYaml(f: { channel: string; codec: string; apiKeyEnv: string }): string {
  return `  - name: ${f.channel}
    transport: http
    bind: "POST /channels/${f.channel}"
    codec: ${f.codec}
    ack-mode: on-complete          # hold the request open and answer with the reply
    auth:
      scheme: apikey
      apikey:
        value: env:${f.apiKeyEnv}   # a reference: the key itself never enters the archive
        header: X-Api-Key
`;
}

/** Every file of the package. */
export function packageFiles(s: PackageScaffold): ScaffoldFile[] {
  const f = packageFacts(s);
  const codec = `urn:${s.module}`;
  return [
    {
      path: "package.yaml",
      text: `# Labels select and partition a deployment; tenant--module--version is its slot.
labels:
  tenant: ${f.tenant}
  module: ${f.module}
  version: ${f.version}
engine:
  minContract: ${PACKAGE_CONTRACT}
`,
    },
    {
      path: "channels.yaml",
      text: `channels:
${httpChannelYaml({ channel: f.channel, codec, apiKeyEnv: f.apiKeyEnv })}`,
    },
    ...codecFiles(s.module, f.messageType),
    ...processFiles({
      process: s.module,
      channel: f.channel,
      messageType: f.messageType,
      validation: s.validation,
    }),
  ];
}

/**
 * A package codec folder `schemas/<name>/` (codec `urn:<name>`): an XSD
 * declaring one sample message type, for XML and JSON payloads.
 */
export function codecFiles(name: string, messageType: string): ScaffoldFile[] {
  const codec = `urn:${name}`;
  return [
    {
      path: `schemas/${name}/codec-manifest.yaml`,
      text: `# The codec ${codec}: these XSDs, for XML and JSON payloads.
schemaKind: xsd
formats: [xml, json]
`,
    },
    {
      path: `schemas/${name}/${name}.xsd`,
      text: `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <!-- The message type is the root element's name: ${messageType}. -->
  <xs:element name="${messageType}">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="id" type="Identifier"/>
        <xs:element name="amount" type="Amount"/>
        <xs:element name="currency" type="Currency"/>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
  <xs:simpleType name="Identifier">
    <xs:restriction base="xs:string"><xs:minLength value="1"/><xs:maxLength value="35"/></xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="Amount">
    <xs:restriction base="xs:decimal"><xs:fractionDigits value="2"/><xs:minExclusive value="0"/></xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="Currency">
    <xs:restriction base="xs:string"><xs:pattern value="[A-Z]{3}"/></xs:restriction>
  </xs:simpleType>
</xs:schema>
`,
    },
  ];
}
