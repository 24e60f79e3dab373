/**
 * The OpenAPI 3.1 description of a package's HTTP channels: one `POST`
 * operation per channel on the `http` transport, its request body from the
 * channel codec's message types (the shape the codec's schema gives each),
 * its answers from the processes the channel starts (a `q:reply`, the
 * instances it settled, or a receipt when the channel acknowledges on
 * persist) and every refusal the HTTP intake answers with, and the channel's
 * auth as a security scheme. `sutra openapi` prints it for a package; the
 * engine serves it for each live deployment.
 *
 * Channels on other transports, and the data stores, are listed under the
 * `x-sutra-channels` and `x-sutra-datastores` extensions, so the document
 * tells a reader what else the package listens on.
 *
 * @module
 */
import type { Shape } from "../bpmn/shape.ts";
import { ModelIndex } from "../bpmn/mod.ts";
import type { Codec } from "../core/codec.ts";
import type { ChannelDecl } from "./channels_yaml.ts";
import type { LoadedPackage } from "./load.ts";

/** The deployment a document describes, when it is a sealed or deployed one. */
export interface OpenApiOptions {
  /** `sha256` of the archive manifest. */
  readonly deploymentId?: string;
}

/** A JSON Schema (OpenAPI 3.1 uses JSON Schema 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** An OpenAPI 3.1 document. */
export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly paths: Record<string, unknown>;
  readonly components: {
    readonly schemas: Record<string, JsonSchema>;
    readonly securitySchemes: Record<string, JsonSchema>;
  };
  readonly [extension: `x-${string}`]: unknown;
}

/** Where a channel's messages go: the processes and nodes that take them. */
export interface ChannelTarget {
  readonly bpmn: string;
  readonly process: string;
  readonly node: string;
  /** A start event (a new instance) or a relay (a message for a waiting instance). */
  readonly role: "start" | "relay";
  /** The message type the node accepts, when it pins one. */
  readonly messageType?: string;
  readonly messageTypePattern?: string;
}

/** Every process node fed by `channel`, in file and document order. */
export function channelTargets(pkg: LoadedPackage, channel: string): ChannelTarget[] {
  const out: ChannelTarget[] = [];
  for (const { artifact, result } of pkg.bpmn) {
    const definitions = result.definitions;
    if (!definitions) continue;
    const index = new ModelIndex(definitions);
    for (const process of definitions.processes) {
      for (const { node, container } of index.nodesOf(process)) {
        for (const source of node.q.sources) {
          if (source.channel !== channel) continue;
          out.push({
            bpmn: artifact.path,
            process: process.id,
            node: node.id,
            role: node.kind === "startEvent" && !container.owner ? "start" : "relay",
            ...(source.messageTypeValue === undefined
              ? {}
              : { messageType: source.messageTypeValue }),
            ...(source.messageTypePattern === undefined
              ? {}
              : { messageTypePattern: source.messageTypePattern }),
          });
        }
      }
    }
  }
  return out;
}

/** The content types processes started by a channel reply with (`q:reply contentType`). */
function replyTypes(pkg: LoadedPackage, targets: readonly ChannelTarget[]): {
  replies: boolean;
  types: string[];
} {
  const processes = new Set(targets.map((t) => t.process));
  const types = new Set<string>();
  let replies = false;
  for (const { result } of pkg.bpmn) {
    const definitions = result.definitions;
    if (!definitions) continue;
    const index = new ModelIndex(definitions);
    for (const process of definitions.processes) {
      if (!processes.has(process.id)) continue;
      for (const { node } of index.nodesOf(process)) {
        for (const reply of node.q.replies) {
          replies = true;
          if (reply.contentType) types.add(reply.contentType);
        }
      }
    }
  }
  return { replies, types: [...types].sort() };
}

/** A shape as JSON Schema; `loose` scalars (an XSD codec's JSON) may also be written as text. */
export function shapeSchema(shape: Shape | undefined, loose = false): JsonSchema {
  if (shape === undefined) return {};
  switch (shape.kind) {
    case "any":
      return {};
    case "list":
      return { type: "array", items: shapeSchema(shape.item, loose) };
    case "scalar": {
      const type = shape.type === "number" || shape.type === "boolean" ? shape.type : "string";
      return { type: loose && type !== "string" ? [type, "string"] : type };
    }
    case "record": {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, field] of Object.entries(shape.fields)) {
        // An XSD element that may repeat is written as one value or a list of them.
        const schema = shapeSchema(field, loose);
        properties[name] = loose && field.kind === "list"
          ? { oneOf: [schema, shapeSchema(field.item, loose)] }
          : schema;
      }
      return {
        type: "object",
        properties,
        ...(shape.open ? {} : { additionalProperties: false }),
      };
    }
  }
}

/** Content types a codec reads, without suffix patterns (`+xml`) OpenAPI cannot name. */
function mediaTypes(codec: Codec | undefined): string[] {
  const types = (codec?.contentTypes ?? []).filter((t) => !t.startsWith("+"));
  return types.length > 0 ? [...types] : ["application/octet-stream"];
}

const XML_TYPE = /[/+]xml$/;

/** The request body of a channel: each message type its targets take, per media type. */
function requestBody(
  pkg: LoadedPackage,
  channel: ChannelDecl,
  targets: readonly ChannelTarget[],
  schemas: Record<string, JsonSchema>,
): JsonSchema {
  const codec = channel.codec ? pkg.codecs.codec(channel.codec) : undefined;
  const xsd = channel.codec !== undefined && pkg.codecs.own(channel.codec)?.kind === "xsd";
  const declared = codec?.messageTypes() ?? [];
  const pinned = targets.flatMap((t) => t.messageType === undefined ? [] : [t.messageType]);
  const open = targets.some((t) => t.messageType === undefined);
  const types = [...new Set(open ? declared : pinned.filter((t) => declared.includes(t)))].sort();
  const content: Record<string, JsonSchema> = {};
  for (const media of mediaTypes(codec)) {
    const xml = XML_TYPE.test(media);
    const variants = types.map((type) => {
      const name = componentName(channel.codec!, type, xsd && !xml);
      if (!(name in schemas)) {
        const schema = shapeSchema(codec!.shapeOf(type), xsd);
        schemas[name] = xsd && !xml
          // A JSON or YAML document for an XSD codec is one member named after the root.
          ? { type: "object", properties: { [type]: schema }, required: [type] }
          : { ...schema, ...(xml ? { xml: { name: type } } : {}) };
      }
      return { $ref: `#/components/schemas/${name}` };
    });
    const schema = variants.length === 0
      ? shapeSchema(codec?.shapeOf(undefined))
      : variants.length === 1
      ? variants[0]
      : { oneOf: variants };
    content[media] = { schema };
  }
  return {
    required: true,
    description: `Decoded by ${channel.codec ?? "the transport's default codec"}${
      types.length > 0 ? `; message types: ${types.join(", ")}` : ""
    }.`,
    content,
  };
}

function componentName(codec: string, type: string, wrapped: boolean): string {
  const base = `${codec.replace(/^urn:/, "").replace(/[^A-Za-z0-9._-]/g, "_")}.${type}`;
  return wrapped ? `${base}.document` : base;
}

/** The security scheme of a channel's auth, and its component name. */
function securityScheme(channel: ChannelDecl): [string, JsonSchema] | undefined {
  const auth = channel.auth;
  switch (auth?.scheme) {
    case undefined:
    case "none":
      return undefined;
    case "apikey":
      return [
        `apikey-${auth.apikey.header.toLowerCase()}`,
        { type: "apiKey", in: "header", name: auth.apikey.header },
      ];
    case "basic":
      return ["basic", { type: "http", scheme: "basic" }];
    case "bearer":
      return ["bearer", { type: "http", scheme: "bearer" }];
  }
}

const DIAGNOSTICS = { $ref: "#/components/schemas/Diagnostics" };

/** Every refusal the HTTP intake answers a channel with (see `io/transports/http`). */
const REFUSALS: ReadonlyArray<[string, string]> = [
  ["400", "Malformed: the body does not decode, or its content type is not the codec's."],
  ["404", "No active deployment binds this channel (`SUTRA.RESOLVE.CHANNEL.UNKNOWN`)."],
  ["409", "A conflict, or a message to retry later (`retry-after`)."],
  ["413", "The body is over the channel's payload cap."],
  [
    "422",
    "Rejected: the message fails its schema or a validator (`SUTRA.INBOUND.VALIDATION_REJECTED`).",
  ],
  ["429", "The engine is overloaded; retry after `retry-after`."],
  ["500", "The engine failed; the answer carries the codes only."],
];

function responses(
  pkg: LoadedPackage,
  channel: ChannelDecl,
  targets: readonly ChannelTarget[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if ((channel.ackMode ?? "on-complete") === "on-persist") {
    out["202"] = {
      description: "Accepted: the message is persisted and will be processed.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Receipt" } } },
    };
  } else {
    const reply = replyTypes(pkg, targets);
    const codec = channel.codec ? pkg.codecs.codec(channel.codec) : undefined;
    const types = reply.types.length > 0 ? reply.types : mediaTypes(codec).slice(0, 1);
    out["200"] = reply.replies
      ? {
        description: "The process's reply (`q:reply`).",
        content: Object.fromEntries(types.map((t) => [t, { schema: {} }])),
      }
      : {
        description: "Processed: the instances the message started or resumed.",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Settled" } } },
      };
  }
  for (const [status, description] of REFUSALS) {
    out[status] = { description, content: { "application/json": { schema: DIAGNOSTICS } } };
  }
  if (channel.auth && channel.auth.scheme !== "none") {
    out["401"] = {
      description: "The caller did not authenticate (`www-authenticate` names the scheme).",
      content: { "application/json": { schema: DIAGNOSTICS } },
    };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const COMMON_SCHEMAS: Record<string, JsonSchema> = {
  Diagnostic: {
    type: "object",
    required: ["code", "severity", "message"],
    properties: {
      code: { type: "string", pattern: "^SUTRA\\." },
      severity: { enum: ["ERROR", "WARNING", "INFO"] },
      message: { type: "string" },
      source: {
        type: "object",
        properties: {
          uri: { type: "string" },
          line: { type: "integer" },
          column: { type: "integer" },
        },
      },
      attributes: { type: "object" },
    },
  },
  Diagnostics: {
    type: "object",
    required: ["diagnostics"],
    properties: {
      diagnostics: { type: "array", items: { $ref: "#/components/schemas/Diagnostic" } },
    },
  },
  Receipt: {
    type: "object",
    required: ["receiptId"],
    properties: { receiptId: { type: "string" } },
  },
  Settled: {
    type: "object",
    required: ["instances"],
    properties: { instances: { type: "array", items: {} } },
  },
};

/** The path an HTTP channel is served on: its `bind` (`POST /channels/<name>` by default). */
function boundPath(channel: ChannelDecl): string {
  const bind = channel.bind ?? `POST /channels/${channel.name}`;
  return bind.replace(/^[A-Z]+\s+/, "");
}

/** Builds the OpenAPI document of a loaded package. */
export function openApiDocument(pkg: LoadedPackage, options: OpenApiOptions = {}): OpenApiDocument {
  const labels = pkg.descriptor?.labels;
  const schemas: Record<string, JsonSchema> = { ...COMMON_SCHEMAS };
  const securitySchemes: Record<string, JsonSchema> = {};
  const paths: Record<string, unknown> = {};
  const channels = [...(pkg.channels.entries ?? [])].sort((a, b) => a.name < b.name ? -1 : 1);
  const others: JsonSchema[] = [];
  for (const channel of channels) {
    const targets = channelTargets(pkg, channel.name);
    const summary = {
      channel: channel.name,
      transport: channel.transport,
      ...(channel.codec ? { codec: channel.codec } : {}),
      ackMode: channel.ackMode ?? "on-complete",
      targets,
    };
    if (channel.transport !== "http") {
      others.push(summary);
      continue;
    }
    const scheme = securityScheme(channel);
    if (scheme) securitySchemes[scheme[0]] = scheme[1];
    const starts = targets.filter((t) => t.role === "start").map((t) => `${t.process}#${t.node}`);
    const relays = targets.filter((t) => t.role === "relay").map((t) => `${t.process}#${t.node}`);
    paths[boundPath(channel)] = {
      post: {
        operationId: `channel-${channel.name}`,
        summary: `Channel ${channel.name}`,
        description: [
          starts.length > 0 ? `Starts ${starts.join(", ")}.` : "",
          relays.length > 0 ? `Resumes waiting instances at ${relays.join(", ")}.` : "",
          `Acknowledged ${channel.ackMode ?? "on-complete"}.`,
        ].filter((s) => s !== "").join(" "),
        tags: ["channels"],
        requestBody: requestBody(pkg, channel, targets, schemas),
        responses: responses(pkg, channel, targets),
        ...(scheme ? { security: [{ [scheme[0]]: [] }] } : {}),
        "x-sutra-channel": summary,
      },
    };
  }
  const title = labels ? `${labels.tenant}/${labels.module}` : "sutra package";
  return {
    openapi: "3.1.0",
    info: {
      title,
      version: labels?.version ?? "0.0.0",
      description: `The HTTP channels of ${title}${
        options.deploymentId ? ` (deployment ${options.deploymentId})` : ""
      }, generated from its package.`,
    },
    paths,
    components: { schemas, securitySchemes },
    ...(options.deploymentId ? { "x-sutra-deployment": options.deploymentId } : {}),
    "x-sutra-channels": others,
    "x-sutra-datastores": (pkg.stores.entries ?? []).map((s) => ({
      name: s.name,
      type: s.type,
    })),
  };
}
