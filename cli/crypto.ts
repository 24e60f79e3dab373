/**
 * `sutra crypto`: the keys of encryption at rest, kept in the keyring file
 * the engine reads (`sutra.crypto.keyring`).
 *
 * - `provision-dek` makes a tenant a new data-encryption key, wrapped by a
 *   key-encryption key named by secret reference, and makes it the
 *   tenant's active key; older keys stay to open what they sealed.
 * - `rewrap` wraps existing data keys under another key-encryption key, so
 *   an old one can be retired without touching any stored value.
 *
 * Nothing secret is printed.
 *
 * @module
 */
import { defaultResolveContext, type ResolveContext } from "../engine/core/secrets.ts";
import { provisionDataKey, rewrapDataKeys } from "../engine/runtime/crypto/mod.ts";
import { type CliIo, type Command, formatFlag, UsageError } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";

const USAGE = `Usage: sutra crypto provision-dek --key-id <KEY_ID> --kek <REF> [options]
       sutra crypto rewrap --kek <REF> [--from <REF>] [options]

provision-dek makes a random AES-256 data-encryption key for a tenant, wraps
it with the key-encryption key REF resolves to (env:NAME, secret:NAME or
\${NAME}; 32 bytes as base64 or 64 hex digits) and appends it to the keyring,
where it becomes the tenant's active key. Rotation is the same command with a
new key id; keys provisioned earlier keep opening what they encrypted.

rewrap wraps the keyring's data keys (those under --from, of --tenant, or
all) with the key-encryption key REF instead; the data keys themselves and
everything encrypted with them stay as they are. Both KEKs must resolve.

Options:
  --key-id KEY_ID      provision-dek: the new key's id (1-64 of A-Z a-z 0-9 . _ -), unique per tenant
  --kek REF            secret reference of the key-encryption key to wrap with
  --from REF           rewrap: only the keys wrapped under this reference
  --tenant TENANT      provision-dek: the tenant (default: default); rewrap: only its keys
  --keyring PATH       the keyring file (env SUTRA_CRYPTO_KEYRING); provision-dek creates it
  --format text|json   report format (default text)
  -h, --help           this text`;

type Invocation =
  | {
    readonly sub: "provision-dek";
    readonly keyId: string;
    readonly kek: string;
    readonly tenant: string;
    readonly keyring: string;
    readonly format: "text" | "json";
  }
  | {
    readonly sub: "rewrap";
    readonly kek: string;
    readonly from?: string;
    readonly tenant?: string;
    readonly keyring: string;
    readonly format: "text" | "json";
  };

function parseInvocation(args: readonly string[], io: CliIo): Invocation | "help" {
  const parsed = parseCommandArgs(args, {
    "key-id": { type: "string" },
    kek: { type: "string" },
    from: { type: "string" },
    tenant: { type: "string" },
    keyring: { type: "string" },
    format: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  const { positionals } = parsed;
  const flag = (name: string) => stringFlag(parsed, name);
  if (parsed.flags.help === true) return "help";
  const [sub] = positionals;
  if (positionals.length !== 1 || (sub !== "provision-dek" && sub !== "rewrap")) {
    throw new UsageError(
      `expected the sub-command provision-dek or rewrap, got '${
        positionals.join(" ") || "nothing"
      }'`,
    );
  }
  const kek = flag("kek");
  if (!kek) throw new UsageError("--kek REF is required");
  const keyring = flag("keyring") ?? (io.env("SUTRA_CRYPTO_KEYRING") || undefined);
  if (!keyring) throw new UsageError("--keyring PATH (or SUTRA_CRYPTO_KEYRING) is required");
  const format = formatFlag(flag("format"));
  const from = flag("from");
  const tenant = flag("tenant");
  if (sub === "rewrap") {
    if (flag("key-id") !== undefined) throw new UsageError("rewrap takes no --key-id");
    return {
      sub,
      kek,
      keyring,
      format,
      ...(from !== undefined ? { from } : {}),
      ...(tenant !== undefined ? { tenant } : {}),
    };
  }
  if (from !== undefined) throw new UsageError("provision-dek takes no --from");
  const keyId = flag("key-id");
  if (!keyId) throw new UsageError("--key-id KEY_ID is required");
  return { sub, keyId, kek, tenant: tenant ?? "default", keyring, format };
}

/** Options for {@link createCryptoCommand}. */
export interface CryptoCommandOptions {
  /** The instant a key is stamped with (default: now). */
  readonly now?: () => Date;
}

/** Builds the `crypto` command; tests fix its clock. */
export function createCryptoCommand(options: CryptoCommandOptions = {}): Command {
  return {
    name: "crypto",
    summary: "Provision and rewrap the data keys of encryption at rest",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const invocation = parseInvocation(args, io);
      if (invocation === "help") {
        io.stdout(USAGE + "\n");
        return 0;
      }
      // Resolvers read variables by name; the CLI's environment is a lookup, not a listing.
      const env = new Proxy({} as Record<string, string | undefined>, {
        get: (_t, name) => io.env(String(name)),
      });
      const resolve: ResolveContext = defaultResolveContext(env);
      const json = invocation.format === "json";
      if (invocation.sub === "rewrap") {
        const changed = await rewrapDataKeys(invocation.keyring, { ...invocation, resolve });
        const keys = changed.map((e) => ({ tenant: e.tenant, keyId: e.keyId }));
        io.stdout(
          json
            ? JSON.stringify({
              keyring: invocation.keyring,
              kek: invocation.kek,
              rewrapped: keys,
            }) +
              "\n"
            : `rewrapped ${keys.length} data key(s) in ${invocation.keyring} under ${invocation.kek}${
              keys.map((k) => `\n  ${k.tenant} ${k.keyId}`).join("")
            }\n`,
        );
        return 0;
      }
      const entry = await provisionDataKey(invocation.keyring, {
        tenant: invocation.tenant,
        keyId: invocation.keyId,
        kek: invocation.kek,
        resolve,
        now: options.now?.() ?? new Date(),
      });
      const report = {
        keyring: invocation.keyring,
        tenant: entry.tenant,
        keyId: entry.keyId,
        kek: entry.kek,
        createdAt: entry.createdAt,
      };
      io.stdout(
        json
          ? JSON.stringify(report) + "\n"
          : `provisioned data key '${entry.keyId}' for tenant '${entry.tenant}' in ${invocation.keyring}, wrapped by ${entry.kek}; it is now the tenant's active key (restart the engines to load it)\n`,
      );
      return 0;
    },
  };
}

/** The `crypto` command. */
export const cryptoCommand: Command = createCryptoCommand();
