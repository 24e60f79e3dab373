/**
 * The built-in secret resolvers: `env:`, `secret:`, `${…}`, and the vendor
 * schemes `vault:` (HashiCorp Vault KV v2) and `aws-secrets:` (AWS Secrets
 * Manager). Importing this module registers them.
 *
 * @module
 */
import { secretResolvers } from "../../engine/core/secrets.ts";
import { envResolver } from "./env_resolver.ts";
import { fileResolver } from "./file_resolver.ts";
import { placeholderResolver } from "./placeholder_resolver.ts";
import { vaultResolver } from "./vault_resolver.ts";
import { awsSecretsResolver } from "./aws_resolver.ts";

const BUILT_IN = [
  envResolver,
  fileResolver,
  placeholderResolver,
  vaultResolver,
  awsSecretsResolver,
];
for (const resolver of BUILT_IN) {
  if (!secretResolvers.has(resolver.name)) secretResolvers.register(resolver);
}

export { awsSecretsResolver, envResolver, fileResolver, placeholderResolver, vaultResolver };
