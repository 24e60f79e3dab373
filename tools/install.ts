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
import { BuildError, readRequest, runBuild } from "./compile.ts";
import { cliFlags, engineFlags, REPO_ROOT, resolveTransports } from "./flavours.ts";
import { errorMessage } from "../engine/core/errors.ts";

/** One `deno install` argument list per command: `sutra`, then `sutra-engine`. */
export async function installCommands(args: readonly string[]): Promise<string[][]> {
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
  // deno install gives each launcher its own copy of deno.json, the lock and node_modules.
  const home = Deno.env.get("HOME") ?? "/root";
  const bin = `${root ?? Deno.env.get("DENO_INSTALL_ROOT") ?? `${home}/.deno`}/bin`;
  const settings = {
    ...request.settings,
    sourceReads: [`${bin}/.sutra-engine/node_modules`],
  };
  const config = new URL("deno.json", REPO_ROOT).pathname;
  const common = [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--config",
    config,
    ...(root === undefined ? [] : ["--root", root]),
  ];
  return [
    [...common, "--name", "sutra", ...cliFlags(), new URL("cli.ts", REPO_ROOT).pathname],
    [
      ...common,
      "--name",
      "sutra-engine",
      ...engineFlags(transports, settings),
      new URL("main.ts", REPO_ROOT).pathname,
    ],
  ];
}

function main(args: readonly string[]): Promise<number> {
  return runBuild(async () => {
    for (const command of await installCommands(args)) {
      const name = command[command.indexOf("--name") + 1];
      const status = await new Deno.Command(Deno.execPath(), { args: command }).spawn().status;
      if (!status.success) {
        throw new BuildError(
          "SUTRA.BUILD.COMPILE_FAILED",
          `deno install for ${name} exited with ${status.code}`,
        );
      }
      console.error(`installed ${name}`);
    }
    return 0;
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
