/**
 * Encryption at rest of sensitive instance variables: AES-256-GCM envelope
 * encryption with a data key per tenant, wrapped by a key-encryption key
 * named by secret reference. See docs/security.md.
 *
 * @module
 */
export { type AtRestOptions, decodeAtRest, encodeAtRest } from "./at_rest.ts";
export {
  type DataKey,
  Keyring,
  KEYRING_FORMAT,
  type KeyringEntry,
  loadKeyring,
  parseKeyring,
  provisionDataKey,
  type ProvisionOptions,
  readKeyringFile,
  resolveKek,
  rewrapDataKeys,
  type RewrapOptions,
} from "./keyring.ts";
export {
  isSealed,
  maskSealed,
  type OpenOptions,
  openSnapshot,
  SEALED_PREFIX,
  type SealOptions,
  sealSnapshot,
} from "./snapshot_seal.ts";
