/**
 * `sutra create app|deployment|bpmn`: scaffolding. Everything generated is
 * checked by the engine's own loaders before a byte is written, and an
 * existing file is never overwritten — it is kept and reported as such.
 *
 * @module
 */
import { dirname } from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import { diagnostic, hasErrors } from "../engine/core/diagnostic.ts";
import {
  CHANNELS_YAML,
  checkPackage,
  type LoadedPackage,
  loadPackage,
  PACKAGE_YAML,
  type PackageFiles,
} from "../engine/package/mod.ts";
import {
  type CliIo,
  cliLog,
  type Command,
  DiagnosticError,
  formatFlag,
  UsageError,
} from "./command.ts";
import { type CommandArgs, parseCommandArgs, stringFlag } from "./describe.ts";
import { type PackageCommandOptions, readPackageArgument, underDir } from "./lint.ts";
import { checkScaffoldName, envCase, pascalCase } from "./scaffold/names.ts";
import { codecFiles, httpChannelYaml, packageFacts, packageFiles } from "./scaffold/package.ts";
import { processFiles, type ScaffoldFile, type ValidationPolicy } from "./scaffold/process.ts";
import { appPackageDir, workspaceFiles } from "./scaffold/workspace.ts";
import { errorMessage } from "../engine/core/errors.ts";

const USAGE = `Usage: sutra create <app|deployment|bpmn> NAME [options]

  app NAME [--dir D] [--validation fatal|soft]
      An application workspace D/NAME (D defaults to the current directory):
      the package packages/NAME-main (an HTTP channel, an XSD codec with a
      sample message type, a validating process and its reply templates), a
      README with the exact package, deploy and curl lines, a deployments/
      drop folder, a sample message and a health-gated smoke script.

  deployment NAME [--dir D] [--from PACKAGE_DIR]
      A new package D/NAME. With --from, an explicit copy of PACKAGE_DIR (D
      defaults to its parent folder) whose module label becomes NAME; packages
      never inherit, a variant is a copy. Without it, a fresh package.

  bpmn PROCESS --package DIR [--validation fatal|soft] [--channel C]
                [--message-type T] [--codec URN]
      A process in DIR/bpmn/PROCESS.bpmn that starts on message type T
      (default <Process>Request) from channel C (default PROCESS-request),
      routes the inbound's validation summary through a gateway and answers
      with accepted/rejected reply templates. A channel the package does not
      declare yet is added to channels.yaml as an HTTP channel bound to codec
      URN, or to a new codec folder schemas/PROCESS/ declaring T. The package
      as it will be is checked first; nothing is written when a generated or
      updated file has an error.

  --validation fatal   accept only an inbound with no validation finding (default)
  --validation soft    also accept one whose findings all come from the
                       content validators (the schema was satisfied)
  --format text|json   report format (default text)

Existing files are never overwritten: they are kept and listed as such.`;

/** What a create run did. */
export interface CreateReport {
  readonly created: string[];
  readonly kept: string[];
  readonly updated: string[];
}

const ENCODER = new TextEncoder();

/** Builds the `create` command. */
export function createCommand(options: PackageCommandOptions): Command {
  return {
    name: "create",
    summary: "Scaffold an app, a package, or a process in a package",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const [sub, ...rest] = args;
      const parsed = parseCommandArgs(rest, {
        dir: { type: "string" },
        from: { type: "string" },
        package: { type: "string" },
        validation: { type: "string" },
        channel: { type: "string" },
        "message-type": { type: "string" },
        codec: { type: "string" },
        format: { type: "string" },
      });
      const format = formatFlag(stringFlag(parsed, "format"));
      let report: CreateReport;
      switch (sub) {
        case "app":
          report = await createApp(parsed, io, options);
          break;
        case "deployment":
          report = await createDeployment(parsed, io, options);
          break;
        case "bpmn":
          report = await createBpmn(parsed, io, options);
          break;
        default:
          throw new UsageError(
            sub === undefined
              ? "say what to create: app, deployment or bpmn"
              : `cannot create '${sub}'`,
          );
      }
      io.stdout(format === "json" ? JSON.stringify(report, null, 2) + "\n" : formatReport(report));
      return 0;
    },
  };
}

function formatReport(r: CreateReport): string {
  return [
    ...r.created.map((p) => `created  ${p}`),
    ...r.updated.map((p) => `updated  ${p}`),
    ...r.kept.map((p) => `kept     ${p} (exists; not overwritten)`),
  ].join("\n") + "\n";
}

function nameArgument(args: CommandArgs, what: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one ${what}`);
  return checkScaffoldName(args.positionals[0], what);
}

function validationFlag(args: CommandArgs): ValidationPolicy {
  const v = stringFlag(args, "validation") ?? "fatal";
  if (v !== "fatal" && v !== "soft") {
    throw new UsageError(`--validation must be fatal or soft, not '${v}'`);
  }
  return v;
}

function refuseFlags(args: CommandArgs, names: readonly string[], sub: string): void {
  for (const n of names) {
    if (args.flags[n] !== undefined) throw new UsageError(`create ${sub} takes no --${n}`);
  }
}

async function createApp(
  args: CommandArgs,
  io: CliIo,
  options: PackageCommandOptions,
): Promise<CreateReport> {
  refuseFlags(args, ["from", "package", "channel", "message-type", "codec"], "app");
  const app = nameArgument(args, "app name");
  const root = `${stringFlag(args, "dir") ?? "."}/${app}`;
  const scaffold = { module: app, validation: validationFlag(args) };
  const pkg = packageFiles(scaffold);
  cliLog(io, "create").progress(`checking the ${app} package`);
  await verifyPackage(pkg, options);
  const files = [
    ...pkg.map((f) => ({ ...f, path: `${appPackageDir(app)}/${f.path}` })),
    ...workspaceFiles(app, packageFacts(scaffold)),
  ];
  return await writeNew(root, files, io);
}

async function createDeployment(
  args: CommandArgs,
  io: CliIo,
  options: PackageCommandOptions,
): Promise<CreateReport> {
  refuseFlags(args, ["package", "channel", "message-type", "codec"], "deployment");
  const name = nameArgument(args, "deployment name");
  const from = stringFlag(args, "from")?.replace(/\/+$/, "");
  if (from === undefined) {
    const files = packageFiles({ module: name, validation: validationFlag(args) });
    cliLog(io, "create").progress(`checking the ${name} package`);
    await verifyPackage(files, options);
    return await writeNew(`${stringFlag(args, "dir") ?? "."}/${name}`, files, io);
  }
  if (args.flags.validation !== undefined) {
    throw new UsageError("--validation applies to a fresh package, not a copy (--from)");
  }
  cliLog(io, "create").progress(`copying ${from}`);
  const source = await readPackageArgument(from);
  const files: OutFile[] = [...source].map(([path, bytes]) => ({
    path,
    bytes: path === PACKAGE_YAML ? ENCODER.encode(relabel(bytes, name, from)) : bytes,
  }));
  const report = await writeNew(`${stringFlag(args, "dir") ?? dirname(from)}/${name}`, files, io);
  cliLog(io, "create").progress(
    `the copy's module label is '${name}'; run 'sutra lint' on it after editing`,
  );
  return report;
}

/** package.yaml with `labels.module` set to `module`, comments and layout kept. */
function relabel(bytes: Uint8Array, module: string, from: string): string {
  const doc = parseDocument(new TextDecoder().decode(bytes));
  const labels = doc.get("labels", true);
  if (doc.errors.length > 0 || !isMap(labels)) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID",
      `${from}/${PACKAGE_YAML} has no readable labels map to relabel the copy with`,
      { source: { uri: `${from}/${PACKAGE_YAML}` } },
    ));
  }
  labels.set("module", module);
  return doc.toString();
}

async function createBpmn(
  args: CommandArgs,
  io: CliIo,
  options: PackageCommandOptions,
): Promise<CreateReport> {
  refuseFlags(args, ["dir", "from"], "bpmn");
  const process = nameArgument(args, "process name");
  const dir = stringFlag(args, "package")?.replace(/\/+$/, "");
  if (dir === undefined) throw new UsageError("--package DIR is required");
  const channel = stringFlag(args, "channel") ?? `${process}-request`;
  const messageType = stringFlag(args, "message-type") ?? `${pascalCase(process)}Request`;
  if (!/^[A-Za-z_][\w.-]*$/.test(messageType)) {
    throw new UsageError(`--message-type '${messageType}' is not an XML element name`);
  }
  checkScaffoldName(channel, "channel name");

  const existing = await readPackageArgument(dir);
  const loaded = (await loadPackage(existing)).package;
  const clash = loaded.bpmn.find((b) =>
    b.result.definitions?.processes.some((p) => p.id === process)
  );
  if (clash) {
    throw new UsageError(
      `process '${process}' is already defined in ${dir}/${clash.artifact.path}`,
    );
  }
  const files = processFiles({ process, channel, messageType, validation: validationFlag(args) });
  const channels = newChannel(existing, loaded, {
    channel,
    process,
    messageType,
    codec: stringFlag(args, "codec"),
  });
  if (channels !== undefined) files.push(...channels.codecFiles);
  const taken = files.filter((f) => existing.has(f.path)).map((f) => f.path);
  if (taken.length > 0) {
    throw new UsageError(
      `${taken.join(", ")} already exist(s) in ${dir}; choose another process name`,
    );
  }

  // Check the package as it will be: every finding in a file this command
  // writes refuses the command before anything is written.
  cliLog(io, "create").progress(`checking ${dir} with ${files[0].path}`);
  const next = new Map(existing);
  for (const f of files) next.set(f.path, ENCODER.encode(f.text));
  if (channels !== undefined) next.set(CHANNELS_YAML, ENCODER.encode(channels.yaml));
  const touched = new Set([...files.map((f) => f.path), CHANNELS_YAML]);
  const checked = await checkPackage(next, { transports: options.transports });
  const problems = checked.diagnostics.filter((d) =>
    d.severity === "ERROR" && d.source !== undefined && touched.has(d.source.uri)
  );
  if (problems.length > 0) throw new DiagnosticError(problems.map((d) => underDir(d, dir)));

  const report = await writeNew(dir, files, io);
  if (channels === undefined) return report;
  await Deno.writeTextFile(`${dir}/${CHANNELS_YAML}`, channels.yaml);
  return { ...report, updated: [`${dir}/${CHANNELS_YAML}`] };
}

/**
 * For a channel the package does not declare yet: channels.yaml with an
 * HTTP channel for it added, bound to `codec`, or to a new codec folder
 * `schemas/<process>/` declaring the message type when no codec is given.
 * Undefined when the channel exists already.
 */
function newChannel(
  files: PackageFiles,
  pkg: LoadedPackage,
  f: { channel: string; process: string; messageType: string; codec?: string },
): { yaml: string; codecFiles: ScaffoldFile[] } | undefined {
  const bytes = files.get(CHANNELS_YAML);
  if (bytes !== undefined && pkg.channels.entries === undefined) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.CHANNEL.INVALID",
      `${CHANNELS_YAML} does not read cleanly; fix it ('sutra lint') before adding a process`,
      { source: { uri: CHANNELS_YAML } },
    ));
  }
  if (pkg.channels.entries?.some((c) => c.name === f.channel)) return undefined;
  const codec = f.codec ?? `urn:${f.process}`;
  const entry = httpChannelYaml({
    channel: f.channel,
    codec,
    apiKeyEnv: `${envCase(f.process)}_API_KEY`,
  });
  const generated = f.codec === undefined ? codecFiles(f.process, f.messageType) : [];
  if (bytes === undefined) return { yaml: `channels:\n${entry}`, codecFiles: generated };
  const doc = parseDocument(new TextDecoder().decode(bytes));
  const list = doc.get("channels", true);
  const added = parseDocument(`channels:\n${entry}`).get("channels", true);
  if (!isSeq(list) || !isSeq(added)) throw new Error("channels.yaml read without a channels list");
  list.add(added.items[0]);
  return { yaml: doc.toString(), codecFiles: generated };
}

async function verifyPackage(
  files: readonly ScaffoldFile[],
  options: PackageCommandOptions,
): Promise<void> {
  const set = new Map(files.map((f) => [f.path, ENCODER.encode(f.text)]));
  const checked = await checkPackage(set, { transports: options.transports });
  if (hasErrors(checked.diagnostics)) {
    throw new DiagnosticError(checked.diagnostics.filter((d) => d.severity === "ERROR"));
  }
}

/** A file to write: generated text or copied bytes. */
type OutFile =
  & { readonly path: string; readonly mode?: number }
  & (
    | { readonly text: string; readonly bytes?: undefined }
    | { readonly bytes: Uint8Array }
  );

/** Writes every file that does not exist yet under `root`, never replacing one. */
async function writeNew(root: string, files: readonly OutFile[], io: CliIo): Promise<CreateReport> {
  const report: CreateReport = { created: [], kept: [], updated: [] };
  const log = cliLog(io, "create");
  for (const f of files) {
    const path = `${root}/${f.path}`;
    const bytes = f.bytes ?? ENCODER.encode(f.text);
    try {
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeFile(path, bytes, { createNew: true, mode: f.mode ?? 0o644 });
      if (f.mode !== undefined) await Deno.chmod(path, f.mode);
      report.created.push(path);
      log.info(`wrote ${path}`);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        report.kept.push(path);
        log.info(`kept ${path}: it exists`);
        continue;
      }
      throw new DiagnosticError(diagnostic(
        "SUTRA.CLI.FILE_UNWRITABLE",
        `cannot write ${path}: ${errorMessage(error)}`,
        { source: { uri: path } },
      ));
    }
  }
  log.progress(`${report.created.length} file(s) written, ${report.kept.length} kept`);
  return report;
}
