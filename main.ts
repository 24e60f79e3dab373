/**
 * `sutra-engine`: the composition root. It is the one place that names the
 * concrete implementations (secret resolvers, codecs, transports, data-store
 * providers), each of which registers itself on import.
 *
 * @module
 */
import "./io/codecs/mod.ts";
import "./io/secrets/mod.ts";
import "./io/datastores/mod.ts";
import "./io/redactors/mod.ts";
import "./io/transports/mod.ts";
import { runEngineProcess } from "./engine/runtime/mod.ts";

if (import.meta.main) {
  Deno.exit(await runEngineProcess({ args: Deno.args }));
}
