/**
 * `sutra crypto provision-dek`: makes a tenant a new data-encryption key,
 * wrapped by a key-encryption key named by secret reference, and appends it
 * to the keyring file the engine reads (`sutra.crypto.keyring`). The new key
 * becomes the tenant's active one; older keys stay to open what they
 * sealed. Nothing secret is printed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { defaultResolveContext } from "../engine/core/secrets.ts";
import { errorMessage } from "../engine/core/errors.ts";
import { provisionDataKey } from "../engine/runtime/crypto/mod.ts";
import { type CliIo, type Command, UsageError } from "./command.ts";

const USAGE = `Usage: sutra crypto provision-dek --key-id <KEY_ID> --kek <REF> [options]

Makes a random AES-256 data-encryption key for a tenant, wraps it with the
key-encryption key REF resolves to (env:NAME, secret:NAME or \${NAME}; 32
bytes as base64 or 64 hex digits) and appends it to the keyring, where it
becomes the tenant's active key. Rotation is the same command with a new
key id; keys provisioned earlier keep opening what they encrypted.

Options:
  --key-id KEY_ID      the new key's id (1-64 of A-Z a-z 0-9 . _ -), unique per tenant
  --kek REF            secret reference of the key-encryption key
  --tenant TENANT      the tenant (default: default)
  --keyring PATH       the keyring file (env SUTRA_CRYPTO_KEYRING); created when absent
  --format text|json   report format (default text)
  -h, --help           this text`;

interface Invocation {
  readonly keyId: string;
  readonly kek: string;
  readonly tenant: string;
  readonly keyring: string;
  readonly format: "text" | "json";
}

function parseInvocation(args: readonly string[], io: CliIo): Invocation | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        "key-id": { type: "string" },
        kek: { type: "string" },
        tenant: { type: "string" },
        keyring: { type: "string" },
        format: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (positionals.length !== 1 || positionals[0] !== "provision-dek") {
    throw new UsageError(
      `expected the sub-command provision-dek, got '${positionals.join(" ") || "nothing"}'`,
    );
  }
  const keyId = values["key-id"];
  if (!keyId) throw new UsageError("--key-id KEY_ID is required");
  const kek = values.kek;
  if (!kek) throw new UsageError("--kek REF is required");
  const keyring = values.keyring ?? (io.env("SUTRA_CRYPTO_KEYRING") || undefined);
  if (!keyring) throw new UsageError("--keyring PATH (or SUTRA_CRYPTO_KEYRING) is required");
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") {
    throw new UsageError(`--format must be text or json, not '${format}'`);
  }
  return { keyId, kek, tenant: values.tenant ?? "default", keyring, format };
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
    summary: "Provision data-encryption keys for encryption at rest",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const invocation = parseInvocation(args, io);
      if (invocation === "help") {
        io.stdout(USAGE + "\n");
        return 0;
      }
      // Resolvers read variables by name; the CLI's environment is a lookup, not a listing.
      const envFor = new Proxy({} as Record<string, string | undefined>, {
        get: (_t, name) => io.env(String(name)),
      });
      const entry = await provisionDataKey(invocation.keyring, {
        tenant: invocation.tenant,
        keyId: invocation.keyId,
        kek: invocation.kek,
        resolve: defaultResolveContext(envFor),
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
        invocation.format === "json"
          ? JSON.stringify(report) + "\n"
          : `provisioned data key '${entry.keyId}' for tenant '${entry.tenant}' in ${invocation.keyring}, wrapped by ${entry.kek}; it is now the tenant's active key (restart the engines to load it)\n`,
      );
      return 0;
    },
  };
}

/** The `crypto` command. */
export const cryptoCommand: Command = createCryptoCommand();
