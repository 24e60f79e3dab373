/**
 * What a running engine protects sensitive data with: its audit sinks and,
 * when `sutra.crypto.keyring` is set, the keyring that encrypts sensitive
 * variables at rest. Opened once at boot from the configuration; a keyring
 * that does not load, or a JSONL directory that cannot be created, stops
 * the boot (the engine would otherwise write sensitive values in clear, fail
 * every instance that holds one, or lose every audit write).
 *
 * @module
 */
import type { Config } from "../../core/config.ts";
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import type { ResolveContext } from "../../core/secrets.ts";
import { type Keyring, loadKeyring } from "../crypto/mod.ts";
import {
  AUDIT_JSONL_DIR,
  AUDIT_JSONL_MAX_FILE_BYTES,
  AUDIT_SQL,
  CRYPTO_KEYRING,
} from "../settings.ts";
import { JsonlAuditSink } from "./jsonl_sink.ts";
import { AuditSinks } from "./sinks.ts";

/** The audit sinks and the keyring of one engine. */
export interface Protection {
  readonly audit: AuditSinks;
  /** Absent when encryption at rest is off. */
  readonly keyring?: Keyring;
  /** One clause for the boot line: which sinks, whether encryption is on. */
  readonly posture: string;
  /** Writes what the file sinks hold and closes them. */
  close(): Promise<void>;
}

/** Options for {@link openProtection}. */
export interface ProtectionOptions {
  readonly logger: Logger;
  /** This replica's id (in JSONL file names). */
  readonly replicaId: string;
  /** How KEK references resolve. */
  readonly resolve: ResolveContext;
}

/** A JSONL directory that cannot be created stops the boot rather than every later write. */
async function ensureDirectory(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.AUDIT.SINK_FAILED",
      `the JSONL audit directory '${dir}' (sutra.audit.jsonl.dir) cannot be created: ${
        errorMessage(e)
      }`,
      { attributes: { dir } },
    ));
  }
}

function setting(config: Config, key: typeof AUDIT_JSONL_DIR): string | undefined {
  const value = config.get(key)?.trim();
  return value ? value : undefined;
}

/** Opens the audit sinks and loads the keyring the configuration names. */
export async function openProtection(
  config: Config,
  options: ProtectionOptions,
): Promise<Protection> {
  const keyringPath = setting(config, CRYPTO_KEYRING);
  const keyring = keyringPath ? await loadKeyring(keyringPath, options.resolve) : undefined;
  const dir = setting(config, AUDIT_JSONL_DIR);
  if (dir) await ensureDirectory(dir);
  const jsonl = dir
    ? new JsonlAuditSink({
      dir,
      maxFileBytes: config.require(AUDIT_JSONL_MAX_FILE_BYTES),
      replicaId: options.replicaId,
      logger: options.logger,
    })
    : undefined;
  const sql = config.require(AUDIT_SQL);
  const audit = new AuditSinks({ sql, jsonl, logger: options.logger });
  const sinks = [...(sql ? ["sql"] : []), ...(dir ? [`jsonl ${dir}`] : [])];
  const posture = `audit ${sinks.length > 0 ? sinks.join(" + ") : "off"}; encryption at rest ${
    keyring
      ? `on (${keyring.size} data key${keyring.size === 1 ? "" : "s"})`
      : "off (no sutra.crypto.keyring)"
  }`;
  return { audit, keyring, posture, close: () => audit.close() };
}
