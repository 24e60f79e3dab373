/**
 * `deno task install`: installs `sutra` and `sutra-engine` as commands
 * (`deno install --global`), each a launcher that runs this checkout's
 * `cli.ts` / `main.ts` with the project's `deno.json` and lock file and the
 * same narrowed permission flags a compiled binary carries (the engine's are
 * the `full` flavour's, plus read access to its own copy of the npm
 * packages, some of which load wasm files by path). Not self-contained: the
 * launchers need this checkout.
 *
 *     deno task install [--root DIR] [--config FILE] [--listen HOST:PORT]
 *       [--data-dir DIR] [--read DIRS] [--write DIRS] [--net HOSTS] [--env NAMES]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, resolve } from "node:path";
import {
  BuildError,
  installLauncher,
  launcherModules,
  type LauncherOptions,
  readRequest,
  runBuild,
} from "./compile.ts";
import { cliFlags, engineFlags, REPO_ROOT, resolveTransports } from "./flavours.ts";
import { errorMessage } from "../engine/core/errors.ts";

/** The two launchers to install: `sutra`, then `sutra-engine`. */
export async function installLaunchers(args: readonly string[]): Promise<LauncherOptions[]> {
  let root: string | undefined;
  let rest: string[];
  try {
    const parsed = parseArgs({
      args: [...args],
      options: { root: { type: "string" } },
      strict: false,
      allowPositionals: true,
      tokens: true,
    });
    root = typeof parsed.values.root === "string" ? parsed.values.root : undefined;
    // Everything but --root goes to the compile options parser, which refuses what it does not know.
    rest = [];
    for (const token of parsed.tokens ?? []) {
      if (token.kind === "option" && token.name === "root") continue;
      if (token.kind === "option") {
        rest.push(token.rawName, ...(token.value === undefined ? [] : [token.value]));
      } else if (token.kind === "positional") rest.push(token.value);
    }
  } catch (error) {
    throw new BuildError("SUTRA.BUILD.USAGE", errorMessage(error), 2);
  }
  const request = await readRequest([...rest, "--roots-only"]);
  const transports = resolveTransports("all").linked;
  for (const t of transports) await import(new URL(t.module, REPO_ROOT).href);
  const home = Deno.env.get("HOME") ?? "/root";
  const bin = `${root ?? Deno.env.get("DENO_INSTALL_ROOT") ?? `${home}/.deno`}/bin`;
  const settings = { ...request.settings, sourceReads: [launcherModules(bin, "sutra-engine")] };
  return [
    { root, name: "sutra", flags: cliFlags(), entry: new URL("cli.ts", REPO_ROOT).pathname },
    {
      root,
      name: "sutra-engine",
      flags: engineFlags(transports, settings),
      entry: new URL("main.ts", REPO_ROOT).pathname,
    },
  ];
}

function main(args: readonly string[]): Promise<number> {
  return runBuild(async () => {
    let bin = "";
    for (const launcher of await installLaunchers(args)) {
      const path = await installLauncher(launcher);
      bin = dirname(path);
      console.error(`installed ${launcher.name}: ${path}`);
    }
    const onPath = (Deno.env.get("PATH") ?? "").split(":").some((p) => resolve(p) === bin);
    if (!onPath) console.error(`add ${bin} to your PATH to run them by name`);
    return 0;
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
