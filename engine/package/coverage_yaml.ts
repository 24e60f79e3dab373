/**
 * Coverage files (`coverage/**\/*.yaml`): cross-process routes. Each
 * correlation names the business key that ties a cascade of instances
 * together, the hops (links) between its processes, and the routes
 * (`coverages`) — one ordered segment of sequence flows per participating
 * process.
 *
 * ```yaml
 * correlations:
 *   - id: relay-case
 *     key: caseId
 *     links:
 *       - { from: intake:Task_Forward, to: hub:Start_Received }
 *     coverages:
 *       - path: accepted
 *         segments:
 *           intake: [Flow_1, Flow_2]
 *           hub: [Flow_3]
 * ```
 *
 * @module
 */
import type { Diagnostic } from "../core/diagnostic.ts";
import { parseYaml, type YamlFile } from "./_yaml.ts";
import { checkYaml, type Spec } from "./_yaml_schema.ts";
import { RESOURCE_NAME } from "./channels_yaml.ts";

/** A node named as `processId:nodeId`. */
export interface NodeRef {
  readonly process: string;
  readonly node: string;
}

/** One hop: a sending node and the consuming node its message reaches. */
export interface CoverageLink {
  readonly index: number;
  readonly from: NodeRef;
  readonly to: NodeRef;
  /** Overrides the correlation's key for this hop. */
  readonly key?: string;
}

/** One cross-process route. */
export interface CoverageRoute {
  readonly index: number;
  readonly path: string;
  /** Process id → its ordered sequence-flow ids. */
  readonly segments: ReadonlyMap<string, readonly string[]>;
}

/** One correlation: key, hops and routes. */
export interface CoverageCorrelation {
  readonly index: number;
  readonly id: string;
  readonly key: string;
  readonly links: readonly CoverageLink[];
  readonly coverages: readonly CoverageRoute[];
}

/** A parsed coverage file. */
export interface CoverageFile {
  readonly urn: string;
  readonly path: string;
  readonly correlations: readonly CoverageCorrelation[];
}

const NODE_REF = /^[^\s:]+:[^\s:]+$/;
const ID: Spec = { type: "string", pattern: RESOURCE_NAME, hint: "an id" };
const nodeRef: Spec = { type: "string", pattern: NODE_REF, hint: "processId:nodeId" };
const flowList: Spec = { type: "list", minItems: 1, items: { type: "string" } };

/** The schema of a coverage file. */
export const COVERAGE_YAML_SCHEMA: Spec = {
  type: "map",
  fields: {
    correlations: {
      required: true,
      spec: {
        type: "list",
        minItems: 1,
        items: {
          type: "map",
          fields: {
            id: { required: true, spec: ID },
            key: { required: true, spec: { type: "string" } },
            links: {
              spec: {
                type: "list",
                items: {
                  type: "map",
                  fields: {
                    from: { required: true, spec: nodeRef },
                    to: { required: true, spec: nodeRef },
                    key: { spec: { type: "string" } },
                  },
                },
              },
            },
            coverages: {
              required: true,
              spec: {
                type: "list",
                minItems: 1,
                items: {
                  type: "map",
                  fields: {
                    path: { required: true, spec: ID },
                    segments: { required: true, spec: { type: "map", values: flowList } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** What {@link readCoverageYaml} returns. */
export interface CoverageYamlResult {
  readonly coverage?: CoverageFile;
  readonly file?: YamlFile;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads and checks one coverage file. */
export function readCoverageYaml(
  bytes: Uint8Array,
  options: { readonly path: string; readonly urn: string },
): CoverageYamlResult {
  const parsed = parseYaml(options.path, bytes);
  if (!parsed.file) return parsed;
  const file = parsed.file;
  const checked = checkYaml(file, COVERAGE_YAML_SCHEMA, "SUTRA.CONFIG.COVERAGE.INVALID");
  if (checked.value === undefined) return { file, diagnostics: checked.diagnostics };
  type Raw = {
    id: string;
    key: string;
    links?: { from: string; to: string; key?: string }[];
    coverages: { path: string; segments: Record<string, string[]> }[];
  };
  const raw = (checked.value as { correlations: Raw[] }).correlations;
  const split = (ref: string): NodeRef => {
    const [process, node] = ref.split(":");
    return { process, node };
  };
  return {
    file,
    diagnostics: [],
    coverage: {
      urn: options.urn,
      path: options.path,
      correlations: raw.map((c, index) => ({
        index,
        id: c.id,
        key: c.key,
        links: (c.links ?? []).map((l, k) => ({
          index: k,
          from: split(l.from),
          to: split(l.to),
          ...(l.key === undefined ? {} : { key: l.key }),
        })),
        coverages: c.coverages.map((r, k) => ({
          index: k,
          path: r.path,
          segments: new Map(Object.entries(r.segments)),
        })),
      })),
    },
  };
}
