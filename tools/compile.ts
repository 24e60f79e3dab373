/**
 * `deno task compile`: builds `sutra-engine` flavours and the `sutra` CLI
 * from this tree. For each flavour it writes a composition root linking only
 * the chosen transports (`<out>/roots/engine_<flavour>.ts`) and runs
 * `deno compile` with that flavour's narrowed permission flags (see
 * `flavours.ts`). `deno compile` needs a `denort` runtime, which it downloads
 * unless `DENORT_BIN` names one; where it can do neither, it writes launchers
 * instead (`<out>/bin/<binary>`: shell scripts running the roots with `deno run`
 * and the same flags, labelled as not self-contained) and stops with one
 * `SUTRA.BUILD.DENORT_MISSING` line.
 *
 *     deno task compile [--flavour full|http|file]… [--transports http,file,…]
 *       [--out dist] [--config FILE] [--listen HOST:PORT] [--data-dir DIR]
 *       [--read DIRS] [--write DIRS] [--net HOSTS] [--env NAMES] [--roots-only]
 *
 * @module
 */
import { parseArgs } from "node:util";
// The modules every root links register their configuration keys, whose variables are allowed.
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import "../io/datastores/mod.ts";
import { dirname, relative, resolve } from "node:path";
import { loadConfig } from "../engine/core/config.ts";
import { errorMessage } from "../engine/core/errors.ts";
import {
  DATASOURCE_EMBEDDED_DIR,
  DATASOURCE_URL,
  HTTP_HOST,
  HTTP_PORT,
  httpSocketPath,
} from "../engine/runtime/mod.ts";
import {
  baseEnv,
  type BuildSettings,
  cliFlags,
  compositionRoot,
  engineFlags,
  FLAVOURS,
  REPO_ROOT,
  resolveTransports,
  sourceReads,
  type TransportEntry,
} from "./flavours.ts";

/** One engine build the task will make. */
export interface FlavourBuild {
  readonly flavour: string;
  /** The binary's file name: `sutra-engine` for `full`, else `sutra-engine-<flavour>`. */
  readonly binary: string;
  readonly transports: readonly TransportEntry[];
  readonly flags: readonly string[];
  /** The generated composition root (absolute path). */
  readonly root: string;
}

/** The usage line of the task. */
export const COMPILE_USAGE =
  `Usage: deno task compile [--flavour full|http|file]… [--transports NAMES] [--out DIR]
         [--config FILE] [--listen HOST:PORT] [--data-dir DIR] [--read DIRS]
         [--write DIRS] [--net HOSTS] [--env NAMES] [--roots-only]`;

/** A refusal with its code; printed as one line. */
export class BuildError extends Error {
  /** `code` is a `SUTRA.BUILD.*` code; `exit` the exit code (2 for usage). */
  constructor(readonly code: string, message: string, readonly exit = 1) {
    super(message);
  }
}

/** Runs a build command's body; a {@link BuildError} becomes one `ERROR` line and its exit code. */
export async function runBuild(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    console.error(`ERROR ${error.code}: ${error.message}`);
    return error.exit;
  }
}

/** What the command line asked for. */
export interface CompileRequest {
  readonly flavours: readonly { name: string; transports: readonly string[] | "all" }[];
  readonly out: string;
  readonly settings: BuildSettings;
  readonly rootsOnly: boolean;
}

/** Reads the command line and the build-time configuration. */
export async function readRequest(args: readonly string[]): Promise<CompileRequest> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        flavour: { type: "string", multiple: true },
        transports: { type: "string" },
        out: { type: "string", default: "dist" },
        config: { type: "string" },
        listen: { type: "string" },
        "data-dir": { type: "string" },
        read: { type: "string" },
        write: { type: "string" },
        net: { type: "string" },
        env: { type: "string" },
        "roots-only": { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new BuildError("SUTRA.BUILD.USAGE", `${errorMessage(error)}\n${COMPILE_USAGE}`, 2);
  }
  const names = (values.flavour as string[] | undefined) ?? [];
  for (const n of names) {
    if (!(n in FLAVOURS)) {
      throw new BuildError(
        "SUTRA.BUILD.FLAVOUR_UNKNOWN",
        `no flavour '${n}' (known: ${Object.keys(FLAVOURS).join(", ")})`,
        2,
      );
    }
  }
  const custom = values.transports as string | undefined;
  const flavours = custom !== undefined
    ? [{ name: names[0] ?? "custom", transports: split(custom) }]
    : (names.length > 0 ? names : ["full"]).map((name) => ({ name, transports: FLAVOURS[name] }));

  // The build-time configuration: the file given (or ./sutra.properties), not the environment.
  const config = await loadConfig({
    env: values.config === undefined ? {} : { SUTRA_CONFIG: values.config as string },
  });
  const listen = parseListen(
    (values.listen as string | undefined) ??
      `${config.require(HTTP_HOST)}:${config.require(HTTP_PORT)}`,
  );
  const settings: BuildSettings = {
    listen,
    socket: httpSocketPath(config),
    dataDir: (values["data-dir"] as string | undefined) ?? config.require(DATASOURCE_EMBEDDED_DIR),
    datasourceUrl: config.get(DATASOURCE_URL),
    read: split(values.read as string | undefined),
    write: split(values.write as string | undefined),
    netHosts: values.net === undefined ? undefined : split(values.net as string),
    envNames: split(values.env as string | undefined),
    configFile: (values.config as string | undefined) ?? "sutra.properties",
  };
  return {
    flavours,
    out: values.out as string,
    settings,
    rootsOnly: values["roots-only"] === true,
  };
}

function split(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function parseListen(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(":");
  const port = Number(value.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new BuildError("SUTRA.BUILD.USAGE", `--listen must be HOST:PORT, not '${value}'`, 2);
  }
  return { host: value.slice(0, at), port };
}

/**
 * Writes each flavour's composition root under `<out>/roots/` and works out
 * its flags. Transports this tree does not have yet are skipped with a
 * message on `log`; an unknown name is an error.
 */
export async function prepareFlavours(
  request: CompileRequest,
  log: (line: string) => void = console.error,
): Promise<FlavourBuild[]> {
  const builds: FlavourBuild[] = [];
  const rootsDir = resolve(request.out, "roots");
  await Deno.mkdir(rootsDir, { recursive: true });
  for (const { name, transports } of request.flavours) {
    const found = resolveTransports(transports);
    if (found.unknown.length > 0) {
      throw new BuildError(
        "SUTRA.BUILD.TRANSPORT_UNKNOWN",
        `flavour '${name}': no transport ${found.unknown.map((n) => `'${n}'`).join(", ")}`,
        2,
      );
    }
    for (const t of found.missing) {
      log(`flavour '${name}': skipping transport '${t.name}': ${t.module} is not in this tree`);
    }
    if (found.linked.length === 0) {
      throw new BuildError(
        "SUTRA.BUILD.TRANSPORT_UNKNOWN",
        `flavour '${name}' links no transport this tree has`,
      );
    }
    // Their configuration keys join the registry, so their variables are allowed.
    for (const t of found.linked) await import(new URL(t.module, REPO_ROOT).href);
    const root = resolve(rootsDir, `engine_${name}.ts`);
    // Relative imports, so the root works wherever the output folder is (/out in the image).
    const up = relative(dirname(root), REPO_ROOT.pathname);
    const defaults = baseEnv(found.linked, request.settings);
    await Deno.writeTextFile(root, compositionRoot(found.linked, { up, flavour: name, defaults }));
    builds.push({
      flavour: name,
      binary: name === "full" ? "sutra-engine" : `sutra-engine-${name}`,
      transports: found.linked,
      flags: engineFlags(found.linked, request.settings),
      root,
    });
  }
  return builds;
}

/** The `deno compile` argument lists: one per engine flavour, then the CLI. */
export function compileCommands(builds: readonly FlavourBuild[], out: string): string[][] {
  const config = new URL("deno.json", REPO_ROOT).pathname;
  // The npm packages that read their wasm and data files by path, which imports alone do not carry.
  const includes = sourceReads().flatMap((p) => ["--include", p]);
  return [
    ...builds.map((b) => [
      "compile",
      "--quiet",
      "--config",
      config,
      "--no-prompt",
      ...b.flags,
      ...includes,
      "--output",
      resolve(out, b.binary),
      b.root,
    ]),
    [
      "compile",
      "--quiet",
      "--config",
      config,
      "--no-prompt",
      ...cliFlags(),
      "--output",
      resolve(out, "sutra"),
      new URL("cli.ts", REPO_ROOT).pathname,
    ],
  ];
}

/** `DENORT_BIN`, when set, must name a file: `deno compile` builds on it instead of downloading. */
export function checkDenortBin(env: Readonly<Record<string, string | undefined>>): void {
  const path = env["DENORT_BIN"];
  if (path === undefined || path === "") return;
  let isFile = false;
  try {
    isFile = Deno.statSync(path).isFile;
  } catch {
    // Reported below.
  }
  if (!isFile) {
    throw new BuildError(
      "SUTRA.BUILD.DENORT_MISSING",
      `DENORT_BIN names ${path}, which is not a file`,
    );
  }
}

/** `deno compile` could neither find nor download its runtime. */
class DenortMissing extends Error {}

/** The comment every launcher carries under its first line, so no one mistakes it for a binary. */
export const LAUNCHER_LABEL =
  "# A Sutra launcher, not self-contained: it runs this checkout's sources with deno.";

/** Options for {@link launcherCommand}. */
export interface LauncherOptions {
  /** The command's name: the launcher is `<root>/bin/<name>`. */
  readonly name: string;
  /** The permission flags it runs with. */
  readonly flags: readonly string[];
  /** The module it runs (absolute path). */
  readonly entry: string;
  /** The install root; Deno's default (`DENO_INSTALL_ROOT`, else `~/.deno`) when absent. */
  readonly root?: string;
}

/** The `deno install --global` argument list writing one launcher with this tree's config and lock. */
export function launcherCommand(options: LauncherOptions): string[] {
  return [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--config",
    new URL("deno.json", REPO_ROOT).pathname,
    ...(options.root === undefined ? [] : ["--root", options.root]),
    "--name",
    options.name,
    ...options.flags,
    options.entry,
  ];
}

/**
 * The npm packages a launcher named `name` in `bin` runs from: `deno install`
 * gives each launcher its own copy, whose wasm and data files the engine reads.
 */
export function launcherModules(bin: string, name: string): string {
  return `${bin}/.${name}/node_modules`;
}

/** Writes one launcher (see {@link launcherCommand}) and labels it; resolves to its path. */
export async function installLauncher(options: LauncherOptions): Promise<string> {
  const status = await new Deno.Command(Deno.execPath(), { args: launcherCommand(options) })
    .spawn().status;
  if (!status.success) {
    throw new BuildError(
      "SUTRA.BUILD.COMPILE_FAILED",
      `deno install for ${options.name} exited with ${status.code}`,
    );
  }
  const home = Deno.env.get("HOME") ?? "/root";
  const root = options.root ?? Deno.env.get("DENO_INSTALL_ROOT") ?? `${home}/.deno`;
  const path = `${root}/bin/${options.name}`;
  const script = await Deno.readTextFile(path);
  const end = script.indexOf("\n") + 1;
  const body = pinDeno(script.slice(end), Deno.execPath());
  await Deno.writeTextFile(path, `${script.slice(0, end)}${LAUNCHER_LABEL}\n${body}`);
  return path;
}

/**
 * Makes a launcher run the Deno that installed it rather than whatever
 * `deno` is on the PATH — there may be none when Deno came through `npx` —
 * falling back to the PATH's when that binary has gone (an npx cache
 * cleared, say).
 */
export function pinDeno(script: string, deno: string): string {
  const quoted = `'${deno.replaceAll("'", `'\\''`)}'`;
  return script.replace(
    /^exec deno /m,
    `deno_bin=${quoted}\n[ -x "$deno_bin" ] || deno_bin=deno\nexec "$deno_bin" `,
  );
}

/** Writes a launcher per engine flavour and one for the CLI under `<out>/bin`; resolves to that folder. */
export async function writeLaunchers(
  builds: readonly FlavourBuild[],
  request: CompileRequest,
): Promise<string> {
  const root = resolve(request.out);
  const bin = `${root}/bin`;
  for (const b of builds) {
    const settings = { ...request.settings, sourceReads: [launcherModules(bin, b.binary)] };
    const flags = engineFlags(b.transports, settings);
    await installLauncher({ root, name: b.binary, flags, entry: b.root });
  }
  await installLauncher({
    root,
    name: "sutra",
    flags: cliFlags(),
    entry: new URL("cli.ts", REPO_ROOT).pathname,
  });
  return bin;
}

/** `deno compile`'s own report when it could not get its runtime. */
const DENORT_FAILURE = /Setting up base binary|denort/i;

/** Runs one `deno compile`; its runtime missing is one line, any other failure its own report. */
async function compileOne(args: readonly string[]): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (output.success) return;
  const report = new TextDecoder().decode(output.stderr);
  if (DENORT_FAILURE.test(report) && !Deno.env.get("DENORT_BIN")) throw new DenortMissing();
  await Deno.stderr.write(output.stderr);
  throw new BuildError(
    "SUTRA.BUILD.COMPILE_FAILED",
    `deno compile for ${args.at(-2)} exited with ${output.code}`,
  );
}

function main(args: readonly string[]): Promise<number> {
  return runBuild(async () => {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(COMPILE_USAGE);
      return 0;
    }
    const request = await readRequest(args);
    const builds = await prepareFlavours(request);
    for (const b of builds) {
      console.error(
        `${b.binary}: ${b.transports.map((t) => t.name).join(", ")} — ${b.flags.join(" ")}`,
      );
    }
    if (request.rootsOnly) return 0;
    checkDenortBin(Deno.env.toObject());
    try {
      for (const args of compileCommands(builds, request.out)) {
        await compileOne(args);
        console.error(`built ${args.at(-2)}`);
      }
    } catch (error) {
      if (!(error instanceof DenortMissing)) throw error;
      const bin = await writeLaunchers(builds, request);
      throw new BuildError(
        "SUTRA.BUILD.DENORT_MISSING",
        `deno compile needs a denort ${Deno.version.deno} runtime and could not download one: ` +
          "set DENORT_BIN to a denort binary of that version; launchers that run the roots " +
          `with deno instead (not self-contained: they need Deno and this checkout) are in ${bin}`,
      );
    }
    return 0;
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
