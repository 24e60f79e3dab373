/**
 * `sutra`: the command-line tool (commands live in cli/).
 *
 * @module
 */
import "./io/codecs/mod.ts";
import "./io/secrets/mod.ts";
import "./io/transports/mod.ts";
import { runCli } from "./cli/main.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
