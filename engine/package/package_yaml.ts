/**
 * `package.yaml`: the package's labels (tenant, module, version, plus any
 * others an operator selects on) and the engine contract it needs.
 *
 * ```yaml
 * labels:
 *   tenant: default
 *   module: money-transfer
 *   version: 1.0.0
 * engine:
 *   minContract: 1
 * ```
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { parseYaml, type YamlFile } from "./_yaml.ts";
import { checkYaml, type Spec } from "./_yaml_schema.ts";
import { PACKAGE_YAML } from "./layout.ts";

/**
 * The package contract this engine implements. A package whose
 * `engine.minContract` is higher needs a newer engine.
 */
export const PACKAGE_CONTRACT = 1;

/** The three labels every package carries, plus any others. */
export interface PackageLabels {
  readonly tenant: string;
  readonly module: string;
  readonly version: string;
  readonly [label: string]: string;
}

/** What `package.yaml` declares. */
export interface PackageDescriptor {
  readonly labels: PackageLabels;
  readonly minContract: number;
}

/**
 * A tenant, module or version label: it becomes part of a file name and of
 * the `tenant--module--version` slot, so it is limited to characters safe
 * in both and may not contain the `--` separator.
 */
export const LABEL_VALUE = /^(?=.{1,64}$)[A-Za-z0-9](?:[A-Za-z0-9._+]|-(?!-))*$/;
/** What {@link LABEL_VALUE} allows, in words. */
export const LABEL_VALUE_HINT =
  "letters, digits, '.', '_', '+' and single '-', starting with a letter " +
  "or digit, at most 64 characters";
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

const slotLabel: Spec = {
  type: "string",
  pattern: LABEL_VALUE,
  hint: LABEL_VALUE_HINT,
};

/** The schema of `package.yaml`. */
export const PACKAGE_YAML_SCHEMA: Spec = {
  type: "map",
  fields: {
    labels: {
      required: true,
      spec: {
        type: "map",
        fields: {
          tenant: { required: true, spec: slotLabel },
          module: { required: true, spec: slotLabel },
          version: { required: true, spec: slotLabel },
        },
        values: { type: "string" },
        keyPattern: LABEL_KEY,
      },
    },
    engine: {
      required: true,
      spec: {
        type: "map",
        fields: { minContract: { required: true, spec: { type: "integer", min: 1 } } },
      },
    },
  },
};

/** What {@link readPackageYaml} returns. */
export interface PackageYamlResult {
  readonly descriptor?: PackageDescriptor;
  readonly file?: YamlFile;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads and checks `package.yaml` (absent bytes: the package has none;
 * `nested` names a sub-folder that holds one, likely the package meant).
 */
export function readPackageYaml(
  bytes: Uint8Array | undefined,
  nested?: string,
): PackageYamlResult {
  if (bytes === undefined) {
    const hint = nested === undefined
      ? ""
      : `; the folder '${nested}/' holds one: point at that folder instead`;
    return {
      diagnostics: [diagnostic(
        "SUTRA.CONFIG.PACKAGE.MANIFEST_MISSING",
        `the package has no ${PACKAGE_YAML}: it declares the tenant, module and version labels ` +
          `and engine.minContract${hint}`,
        { source: { uri: PACKAGE_YAML } },
      )],
    };
  }
  const parsed = parseYaml(PACKAGE_YAML, bytes);
  if (!parsed.file) return parsed;
  const checked = checkYaml(
    parsed.file,
    PACKAGE_YAML_SCHEMA,
    "SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID",
  );
  if (checked.value === undefined) return { file: parsed.file, diagnostics: checked.diagnostics };
  const value = checked.value as { labels: PackageLabels; engine: { minContract: number } };
  const descriptor: PackageDescriptor = {
    labels: value.labels,
    minContract: value.engine.minContract,
  };
  if (descriptor.minContract > PACKAGE_CONTRACT) {
    return {
      file: parsed.file,
      descriptor,
      diagnostics: [diagnostic(
        "SUTRA.CONFIG.PACKAGE.CONTRACT_UNSUPPORTED",
        `engine.minContract is ${descriptor.minContract}, but this engine ` +
          `implements package contract ${PACKAGE_CONTRACT}; deploy it on a newer engine`,
        {
          source: parsed.file.locate(["engine", "minContract"]),
          attributes: { minContract: descriptor.minContract, contract: PACKAGE_CONTRACT },
        },
      )],
    };
  }
  return { file: parsed.file, descriptor, diagnostics: [] };
}
