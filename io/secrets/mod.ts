/**
 * The built-in secret resolvers: `env:`, `secret:` and `${…}`. Importing this
 * module registers them.
 *
 * @module
 */
import { secretResolvers } from "../../engine/core/secrets.ts";
import { envResolver } from "./env_resolver.ts";
import { fileResolver } from "./file_resolver.ts";
import { placeholderResolver } from "./placeholder_resolver.ts";

for (const resolver of [envResolver, fileResolver, placeholderResolver]) {
  if (!secretResolvers.has(resolver.name)) secretResolvers.register(resolver);
}

export { envResolver, fileResolver, placeholderResolver };
