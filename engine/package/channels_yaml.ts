/**
 * `channels.yaml`: the transport channels of a package — the transport each
 * rides, the codec that decodes it, how it acknowledges and who may send.
 * Transport-specific settings sit in the channel's `options:` block, which
 * the transport itself validates when the channel is bound.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { parseYaml, type YamlFile } from "./_yaml.ts";
import { checkYaml, type Spec } from "./_yaml_schema.ts";
import type { AckMode, ChannelAuthSpec } from "../core/transport.ts";
import { CHANNELS_YAML } from "./layout.ts";

/** How a channel authenticates inbound callers (the transport SPI's shape). */
export type ChannelAuth = ChannelAuthSpec;

/** One channel declaration. */
export interface ChannelDecl {
  /** Position in the `channels` list (for locating fields in the file). */
  readonly index: number;
  readonly name: string;
  /** The transport's registered name (`http`, `local`, `pull`, a broker …). */
  readonly transport: string;
  /** Transport-specific address (`POST /channels/orders`, `pull://…`, a queue). */
  readonly bind?: string;
  /** `urn:sutra:codec:<name>` or a package codec URN (`urn:transfer`). */
  readonly codec?: string;
  readonly ackMode?: AckMode;
  readonly cloudeventsMode?: "none" | "binary" | "structured";
  /** Fan a message out to every subscribing process instead of exactly one. */
  readonly broadcast: boolean;
  /** Consume on one replica at a time (lease-gated). */
  readonly singleton: boolean;
  readonly maxConcurrentInstances?: number;
  readonly payloadCapBytes?: number;
  readonly auth?: ChannelAuth;
  /** Settings the transport reads. */
  readonly options?: Readonly<Record<string, unknown>>;
}

/** A channel, store or process name: used in URLs, lease roles and references. */
export const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const NAME_HINT = "a name of letters, digits, '.', '_' and '-', starting with a letter or digit";

/** A codec URN: `urn:` and colon-separated segments. */
export const CODEC_URN = /^urn:[A-Za-z0-9][A-Za-z0-9._-]*(?::[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

const text: Spec = { type: "string" };

const CHANNEL_SPEC: Spec = {
  type: "map",
  fields: {
    name: { required: true, spec: { type: "string", pattern: RESOURCE_NAME, hint: NAME_HINT } },
    transport: {
      required: true,
      spec: { type: "string", pattern: RESOURCE_NAME, hint: "a transport name" },
    },
    bind: { spec: text },
    codec: {
      spec: {
        type: "string",
        pattern: CODEC_URN,
        hint: "a codec URN (urn:sutra:codec:json, urn:transfer)",
      },
    },
    "ack-mode": { spec: { type: "string", enum: ["on-persist", "on-complete"] } },
    "cloudevents-mode": { spec: { type: "string", enum: ["none", "binary", "structured"] } },
    broadcast: { spec: { type: "boolean" } },
    singleton: { spec: { type: "boolean" } },
    maxConcurrentInstances: { spec: { type: "integer", min: 1 } },
    "payload-cap-bytes": { spec: { type: "integer", min: 0 } },
    auth: {
      spec: {
        type: "map",
        fields: {
          scheme: {
            required: true,
            spec: { type: "string", enum: ["none", "apikey", "basic", "bearer"] },
          },
          apikey: {
            spec: {
              type: "map",
              fields: { value: { required: true, spec: text }, header: { spec: text } },
            },
          },
          basic: {
            spec: {
              type: "map",
              fields: {
                username: { required: true, spec: text },
                password: { required: true, spec: text },
              },
            },
          },
          bearer: {
            spec: { type: "map", fields: { token: { required: true, spec: text } } },
          },
        },
      },
    },
    options: { spec: { type: "map", values: { type: "any" } } },
  },
};

/** The schema of `channels.yaml`. */
export const CHANNELS_YAML_SCHEMA: Spec = {
  type: "map",
  fields: { channels: { required: true, spec: { type: "list", items: CHANNEL_SPEC } } },
};

/** What {@link readChannelsYaml} returns. */
export interface ChannelsYamlResult {
  readonly channels?: readonly ChannelDecl[];
  readonly file?: YamlFile;
  readonly diagnostics: readonly Diagnostic[];
}

/** The header an API key arrives in when the channel names none. */
export const DEFAULT_APIKEY_HEADER = "X-Api-Key";

/** Reads and checks `channels.yaml`. */
export function readChannelsYaml(bytes: Uint8Array): ChannelsYamlResult {
  const parsed = parseYaml(CHANNELS_YAML, bytes);
  if (!parsed.file) return parsed;
  const file = parsed.file;
  const checked = checkYaml(file, CHANNELS_YAML_SCHEMA, "SUTRA.CONFIG.CHANNEL.INVALID");
  if (checked.value === undefined) return { file, diagnostics: checked.diagnostics };
  const raw = (checked.value as { channels: Record<string, unknown>[] }).channels;
  const diagnostics: Diagnostic[] = [];
  const channels = raw.map((c, index): ChannelDecl => {
    const auth = c.auth as Record<string, unknown> | undefined;
    if (auth) diagnostics.push(...authShape(file, index, auth));
    return {
      index,
      name: c.name as string,
      transport: c.transport as string,
      ...(c.bind === undefined ? {} : { bind: c.bind as string }),
      ...(c.codec === undefined ? {} : { codec: c.codec as string }),
      ...(c["ack-mode"] === undefined ? {} : { ackMode: c["ack-mode"] as ChannelDecl["ackMode"] }),
      ...(c["cloudevents-mode"] === undefined
        ? {}
        : { cloudeventsMode: c["cloudevents-mode"] as ChannelDecl["cloudeventsMode"] }),
      broadcast: (c.broadcast as boolean | undefined) ?? false,
      singleton: (c.singleton as boolean | undefined) ?? false,
      ...(c.maxConcurrentInstances === undefined
        ? {}
        : { maxConcurrentInstances: c.maxConcurrentInstances as number }),
      ...(c["payload-cap-bytes"] === undefined
        ? {}
        : { payloadCapBytes: c["payload-cap-bytes"] as number }),
      ...(auth === undefined ? {} : { auth: normalizeAuth(auth) }),
      ...(c.options === undefined
        ? {}
        : { options: c.options as Readonly<Record<string, unknown>> }),
    };
  });
  return diagnostics.length > 0 ? { file, diagnostics } : { file, channels, diagnostics };
}

const SCHEME_BLOCKS = ["apikey", "basic", "bearer"] as const;

// The scheme picks exactly one settings block; a block for another scheme
// would be configuration that never applies.
function authShape(file: YamlFile, index: number, auth: Record<string, unknown>): Diagnostic[] {
  const scheme = auth.scheme as string;
  const out: Diagnostic[] = [];
  for (const block of SCHEME_BLOCKS) {
    const present = auth[block] !== undefined;
    if (block === scheme && !present) {
      out.push(diagnostic(
        "SUTRA.CONFIG.CHANNEL.INVALID",
        `channels[${index}].auth: scheme '${scheme}' needs a '${scheme}' block`,
        { source: file.locate(["channels", index, "auth"]) },
      ));
    } else if (block !== scheme && present) {
      out.push(diagnostic(
        "SUTRA.CONFIG.CHANNEL.INVALID",
        `channels[${index}].auth.${block} does not apply to scheme '${scheme}'`,
        { source: file.locate(["channels", index, "auth", block]) },
      ));
    }
  }
  return out;
}

function normalizeAuth(auth: Record<string, unknown>): ChannelAuth {
  const scheme = auth.scheme as ChannelAuth["scheme"];
  if (scheme === "apikey") {
    const block = auth.apikey as { value: string; header?: string };
    return {
      scheme,
      apikey: { value: block.value, header: block.header ?? DEFAULT_APIKEY_HEADER },
    };
  }
  if (scheme === "basic") {
    return { scheme, basic: auth.basic as { username: string; password: string } };
  }
  if (scheme === "bearer") return { scheme, bearer: auth.bearer as { token: string } };
  return { scheme: "none" };
}
