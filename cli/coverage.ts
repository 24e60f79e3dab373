/**
 * `sutra coverage init|check|reset`: path-coverage tooling.
 *
 * - `init <FILE.bpmn> [--process ID]` enumerates a process's start→end
 *   routes and declares them as `q:coverage` paths in the file (keeping the
 *   id of every declaration whose flows still match a route), declares
 *   the reserved `coverage` store in the package's datastores.yaml, and
 *   adds the admin set: the `coverage-report` / `coverage-reset` channels,
 *   their processes and reply templates (see `coverage_scaffold.ts`).
 *   `init <coverage/FILE.yaml> PROCESS…` writes the cross-process scaffold:
 *   each process's flow adjacency, the hops its channels wire, and one
 *   starter route listing every flow per process.
 * - `check [FILE.bpmn]` is the drift lint of the declarations against the
 *   current flow graph; `check --archive A` reads the deployment's flags
 *   from the database its coverage store names (`--database-url`) and exits
 *   1 below `--threshold` — the CI gate.
 * - `reset --archive A` flips every route of the deployment back to
 *   uncovered and clears the reconstruction fragments.
 *
 * @module
 */
import "../io/datastores/mod.ts";
import { dirname, join, relative } from "node:path";
import { loadBpmn, type ProcessPlan, type Subscription } from "../engine/bpmn/mod.ts";
import {
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
} from "../engine/core/diagnostic.ts";
import { errorMessage } from "../engine/core/errors.ts";
import { defaultResolveContext, resolveReference } from "../engine/core/secrets.ts";
import { DEFAULT_LIMITS, type TransportCatalog } from "../engine/package/mod.ts";
import { type Database, mergeCredentials, openDatabase } from "../engine/persistence/mod.ts";
import {
  COVERAGE_STORE_NAME,
  coverageReport,
  coverageReset,
  type CoverageStore,
  coverageStoreProviders,
  declaredRoutes,
  routeIds,
} from "../engine/runtime/coverage/mod.ts";
import {
  DEFAULT_MAX_PATHS,
  enumerateRoutes,
  isSubsequence,
} from "../engine/runtime/coverage/enumerate.ts";
import { compileArchive } from "../engine/runtime/deployments/compile.ts";
import {
  type CliIo,
  type Command,
  formatFlag,
  readInputFile,
  readInputText,
  UsageError,
} from "./command.ts";
import { type CommandArgs, parseCommandArgs, stringFlag } from "./describe.ts";
import { declareEntries, scaffoldAdminChannels } from "./coverage_scaffold.ts";

/** Options for {@link coverageCommand}. */
export interface CoverageCommandOptions {
  /** Transports this build links (an archive is checked against them, as the engine does). */
  readonly transports: TransportCatalog;
}

const USAGE = `Usage:
  sutra coverage init  <FILE> [PROCESS_ID]... [flags]   declare routes / write a cross-process scaffold
  sutra coverage check [BPMN_FILE] [flags]              drift lint, or the store-backed gate
  sutra coverage reset --archive <FILE> [flags]         re-seed the store covered=false

init:
  <FILE.bpmn> [--process ID]   enumerate the process's routes and declare them as q:coverage
                               paths (ids of declarations that still match are kept); declare
                               the coverage store in ../datastores.yaml when it is missing, and
                               add the coverage-report / coverage-reset admin channels with their
                               processes and reply templates (existing files are kept)
  <FILE.yaml> PROCESS_ID...    write a coverage file scaffold spanning those processes (BPMN
                               files are read from ../bpmn/ beside the coverage/ folder)
  --max-paths N                refuse a process with more routes than N (default ${DEFAULT_MAX_PATHS})
  --single                     cross-process form: intra-process adjacency only, no hops
  --force                      replace declarations that match no route / an existing file

check:
  BPMN_FILE                    every declaration must still lie on a start→end route; routes
                               no declaration tracks are reported as notes
  --archive FILE               the deployment's flags, from the store --database-url names
  --database-url URL           the coverage store's database (env SUTRA_DB_URL); default: the
                               store's own url-ref resolved from the environment
  --user USER / --password P   credentials merged into the URL (env SUTRA_DB_USERNAME / _PASSWORD)
  --schema NAME                the store is the engine's database and its tables sit in the
                               engine's schema NAME (env SUTRA_DB_SCHEMA; PostgreSQL or pglite:)
  --threshold P                exit 1 when covered% < P (default 100)

reset:
  --archive FILE, --database-url URL, --user, --password, --schema as for check

Common:
  --format text|json           output format (default text)
  -h, --help                   this text

Exit codes: 0 ok; 1 errors found, threshold not met, or the store is unusable; 2 usage.`;

const FLAGS = {
  process: { type: "string" },
  "max-paths": { type: "string" },
  single: { type: "boolean" },
  force: { type: "boolean" },
  archive: { type: "string" },
  "database-url": { type: "string" },
  user: { type: "string" },
  password: { type: "string" },
  schema: { type: "string" },
  threshold: { type: "string" },
  format: { type: "string" },
} as const;

/** Builds the `coverage` command. */
export function coverageCommand(options: CoverageCommandOptions): Command {
  return {
    name: "coverage",
    summary: "Path coverage: declare routes, lint drift, gate a release on covered%",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const [sub, ...rest] = args;
      const parsed = parseCommandArgs(rest, FLAGS);
      const format = formatFlag(stringFlag(parsed, "format"));
      const out = (text: string, json: unknown) =>
        io.stdout(format === "json" ? `${JSON.stringify(json, null, 2)}\n` : text);
      switch (sub) {
        case "init":
          return await init(parsed, io, out);
        case "check":
          return stringFlag(parsed, "archive") === undefined
            ? await driftCheck(parsed, out)
            : await gate(parsed, io, options, out);
        case "reset":
          return await reset(parsed, io, options, out);
        default:
          throw new UsageError(
            sub === undefined
              ? "name a sub-command: init, check or reset"
              : `unknown sub-command '${sub}'`,
          );
      }
    },
  };
}

type Out = (text: string, json: unknown) => void;

// ---- check (drift lint) ----------------------------------------------------

async function driftCheck(args: CommandArgs, out: Out): Promise<number> {
  const file = onePositional(args, "a BPMN file (or --archive) is required");
  const loaded = await loadBpmnFile(file);
  const errors: Diagnostic[] = loaded.diagnostics.filter((d) => d.severity === "ERROR");
  const notes: { process: string; flows: string[] }[] = [];
  for (const process of loaded.plan?.processes ?? []) {
    const routes = routesOf(process, DEFAULT_MAX_PATHS * 16);
    for (const declared of process.coverage) {
      const flows = declared.flows.map((f) => process.flows[f].id);
      if (!routes.some((r) => isSubsequence(flows, r))) {
        errors.push(diagnostic(
          "SUTRA.CONFIG.BPMN.COVERAGE_NOT_CONTIGUOUS",
          `coverage path '${declared.path}' of process '${process.id}' lies on no start→end route`,
          { source: { uri: file }, attributes: { process: process.id, path: declared.path } },
        ));
      }
    }
    if (process.coverage.length === 0) continue;
    for (const route of routes) {
      const tracked = process.coverage.some((c) =>
        isSubsequence(c.flows.map((f) => process.flows[f].id), route)
      );
      if (!tracked) notes.push({ process: process.id, flows: [...route] });
    }
  }
  out(
    `coverage check: ${errors.length} error(s), ${notes.length} note(s)\n` +
      errors.map((d) => `  ${formatDiagnostic(d)}\n`).join("") +
      notes.map((n) =>
        `  note: process '${n.process}': no declared path tracks ${n.flows.join(" ")}\n`
      )
        .join(""),
    { file, errors, notes },
  );
  return errors.length > 0 ? 1 : 0;
}

function routesOf(process: ProcessPlan, max: number): (readonly string[])[] {
  const e = enumerateRoutes(process, max);
  return e.ok ? [...e.routes] : [];
}

// ---- check --archive (the gate) and reset ----------------------------------

async function gate(
  args: CommandArgs,
  io: CliIo,
  options: CoverageCommandOptions,
  out: Out,
): Promise<number> {
  const threshold = thresholdOf(stringFlag(args, "threshold"));
  const target = await openArchiveStore(args, io, options);
  try {
    const r = await coverageReport(
      target.store,
      target.declared,
      target.deploymentId,
      target.routeIds,
    );
    const pass = r.coveragePercentage >= threshold;
    out(
      `coverage check (${
        target.declared.cross.length > 0 ? "cross-process" : "intra-process"
      }) — ` +
        `deployment ${r.deploymentId}\n` +
        `  total: ${r.total}  covered: ${r.covered}  coveragePercentage: ${
          r.coveragePercentage.toFixed(2)
        }%\n` +
        (r.newlyCovered.length > 0
          ? `  newly covered this run (${r.newlyCovered.length}):\n` +
            r.newlyCovered.map((id) => `    + ${id}\n`).join("")
          : "") +
        (r.uncovered.length > 0
          ? `  uncovered (${r.uncovered.length}):\n` +
            r.uncovered.map((id) => `    - ${id}\n`).join("")
          : "") +
        `  threshold: ${threshold.toFixed(2)}%  =>  ${pass ? "PASS" : "FAIL"}\n`,
      { ...r, threshold, pass },
    );
    return pass ? 0 : 1;
  } finally {
    await target.close();
  }
}

async function reset(
  args: CommandArgs,
  io: CliIo,
  options: CoverageCommandOptions,
  out: Out,
): Promise<number> {
  if (stringFlag(args, "archive") === undefined) throw new UsageError("reset needs --archive");
  const target = await openArchiveStore(args, io, options);
  try {
    const r = await coverageReset(target.store, target.deploymentId, target.routeIds);
    out(
      `coverage reset — deployment ${r.deploymentId}: ${r.total} path(s) re-seeded covered=false ` +
        `(${r.cleared} had been covered), reconstruction fragments cleared\n`,
      r,
    );
    return 0;
  } finally {
    await target.close();
  }
}

function thresholdOf(value: string | undefined): number {
  if (value === undefined) return 100;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 100) {
    throw new UsageError(`--threshold must be a percentage from 0 to 100, not '${value}'`);
  }
  return n;
}

async function openArchiveStore(
  args: CommandArgs,
  io: CliIo,
  options: CoverageCommandOptions,
) {
  const path = stringFlag(args, "archive")!;
  const bytes = await readInputFile(path);
  const compiled = await compileArchive(bytes, {
    transports: options.transports,
    limits: DEFAULT_LIMITS,
    uri: path,
  });
  if (!compiled.ok) throw new DiagnosticError(compiled.diagnostics);
  const { archive, package: pkg, plans } = compiled.compiled;
  const deploymentId = archive.deploymentId;
  const decl = (pkg.stores.entries ?? []).find((s) => s.name === COVERAGE_STORE_NAME);
  if (!decl) {
    throw storeMissing(deploymentId, `${path} declares no '${COVERAGE_STORE_NAME}' store`);
  }
  const env = (name: string) => io.env(name);
  // Resolvers read variables by name; the CLI's environment is a lookup, not a listing.
  const resolve = defaultResolveContext(
    new Proxy({} as Record<string, string | undefined>, { get: (_t, name) => env(String(name)) }),
  );
  const url = stringFlag(args, "database-url") ?? env("SUTRA_DB_URL") ??
    (decl.sql.urlRef === undefined ? undefined : await resolveReference(decl.sql.urlRef, resolve));
  if (url === undefined) {
    throw storeMissing(deploymentId, "no --database-url (or SUTRA_DB_URL) names its database");
  }
  const user = stringFlag(args, "user") ?? env("SUTRA_DB_USERNAME");
  const password = stringFlag(args, "password") ?? env("SUTRA_DB_PASSWORD");
  const schema = stringFlag(args, "schema") ?? env("SUTRA_DB_SCHEMA");
  let engine: Database | undefined;
  let store: CoverageStore;
  try {
    // A store on the engine's database has its tables in the engine's schema: the database is
    // opened the way the engine opens it, and the store is served over it as in the engine.
    engine = schema === undefined ? undefined : await openDatabase(
      mergeCredentials(url.replace(/^pglite:(?!memory)/i, "file://"), {
        username: user,
        password,
      }),
      { schema },
    );
    store = await coverageStoreProviders.get(decl.type)!.open({
      name: COVERAGE_STORE_NAME,
      type: decl.type,
      settings: {
        "url-ref": url,
        ...(user === undefined ? {} : { "username-ref": user }),
        ...(password === undefined ? {} : { "password-ref": password }),
      },
    }, { resolve, engineDatabase: engine });
  } catch (error) {
    await engine?.close();
    const reason = error instanceof DiagnosticError
      ? error.diagnostics.map((d) => d.message).join("; ")
      : errorMessage(error);
    throw storeMissing(deploymentId, `its coverage store could not be opened: ${reason}`);
  }
  const declared = declaredRoutes(pkg, plans.values());
  return {
    store,
    declared,
    deploymentId,
    routeIds: routeIds(declared),
    close: async () => {
      await store.close();
      await engine?.close();
    },
  };
}

function storeMissing(deploymentId: string, why: string): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CONFIG.COVERAGE.STORE_MISSING",
    `deployment ${deploymentId}: no coverage to report: ${why}`,
    { attributes: { deploymentId } },
  ));
}

// ---- init --------------------------------------------------------------------

async function init(args: CommandArgs, io: CliIo, out: Out): Promise<number> {
  const [file, ...processIds] = args.positionals;
  if (file === undefined) throw new UsageError("init needs a BPMN file or a coverage/*.yaml file");
  const maxPaths = maxPathsOf(stringFlag(args, "max-paths"));
  if (/\.ya?ml$/.test(file)) return await initCrossProcess(file, processIds, args, out);
  if (processIds.length > 0) {
    throw new UsageError("the single-process form takes --process ID, not PROCESS_ID arguments");
  }
  return await initSingle(file, { ...args, maxPaths }, io, out);
}

function maxPathsOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_PATHS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`--max-paths must be a whole number of at least 1, not '${value}'`);
  }
  return n;
}

async function initSingle(
  file: string,
  args: CommandArgs & { readonly maxPaths: number },
  _io: CliIo,
  out: Out,
): Promise<number> {
  const text = await readInputText(file);
  const loaded = await loadBpmn(text, { uri: file });
  if (!loaded.plan) {
    throw new DiagnosticError(loaded.diagnostics.filter((d) => d.severity === "ERROR"));
  }
  const wanted = stringFlag(args, "process");
  const processes = loaded.plan.processes;
  const process = wanted === undefined
    ? (processes.length === 1 ? processes[0] : undefined)
    : processes.find((p) => p.id === wanted);
  if (!process) {
    throw new UsageError(
      wanted === undefined
        ? `${file} has ${processes.length} executable processes; name one with --process`
        : `${file} has no executable process '${wanted}'`,
    );
  }
  const e = enumerateRoutes(process, args.maxPaths);
  if (!e.ok) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.USAGE",
      `process '${process.id}' has more than ${args.maxPaths} routes (${e.found} found before ` +
        `stopping); it is too fine-grained for route-level tracking — raise --max-paths only ` +
        `for genuinely distinct business outcomes`,
      { source: { uri: file }, attributes: { process: process.id } },
    ));
  }
  const existing = process.coverage.map((c) => ({
    path: c.path,
    flows: c.flows.map((f) => process.flows[f].id),
  }));
  const kept = new Map<string, string>();
  const stale: string[] = [];
  for (const c of existing) {
    const match = e.routes.find((r) => r.join(" ") === c.flows.join(" "));
    if (match) kept.set(match.join(" "), c.path);
    else stale.push(c.path);
  }
  if (stale.length > 0 && args.flags.force !== true) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.USAGE",
      `${file}: declaration(s) ${stale.map((p) => `'${p}'`).join(", ")} of process ` +
        `'${process.id}' match no enumerated route (edited by hand?); nothing was changed — ` +
        `rerun with --force to replace them`,
      { source: { uri: file }, attributes: { process: process.id } },
    ));
  }
  const used = new Set(kept.values());
  let n = 0;
  const nextId = () => {
    do n++; while (used.has(`path-${n}`));
    return `path-${n}`;
  };
  const paths = e.routes.map((r) => ({ path: kept.get(r.join(" ")) ?? nextId(), flows: r }));
  const updated = writeDeclarations(text, process.id, paths);
  if (updated === undefined) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.USAGE",
      `${file}: cannot find the <bpmn:process id="${process.id}"> element to rewrite safely; ` +
        `nothing was changed`,
      { source: { uri: file } },
    ));
  }
  const changes: { action: string; file: string }[] = [];
  if (updated !== text) {
    await Deno.writeTextFile(file, updated);
    changes.push({ action: "updated", file });
  }
  const root = dirname(dirname(file));
  changes.push(...await scaffoldAdminChannels(root));
  const storesFile = join(root, "datastores.yaml");
  const store = { name: COVERAGE_STORE_NAME, block: STORE_BLOCK };
  if (await declareEntries(storesFile, "datastores", [store])) {
    changes.push({ action: "updated", file: storesFile });
  }
  out(
    `coverage init: ${file} — process '${process.id}', ${paths.length} path(s) declared ` +
      `(${kept.size} kept, ${paths.length - kept.size} new)\n` +
      paths.map((p) => `  path ${p.path}: ${p.flows.join(" ")}\n`).join("") +
      changes.map((c) => `  ${c.action.padEnd(8)} ${relative(".", c.file) || c.file}\n`).join(""),
    { file, process: process.id, paths, kept: kept.size, changes },
  );
  return 0;
}

// Replaces the process's q:coverage lines (or adds an extensionElements block
// right after the process start tag); undefined when the tag cannot be found.
function writeDeclarations(
  text: string,
  processId: string,
  paths: readonly { path: string; flows: readonly string[] }[],
): string | undefined {
  const open = new RegExp(`<((?:\\w+:)?process)\\b[^>]*\\bid="${escapeRegExp(processId)}"[^>]*>`);
  const m = open.exec(text);
  if (!m || m[0].endsWith("/>")) return undefined;
  const tag = m[1];
  const prefix = tag.includes(":") ? tag.slice(0, tag.indexOf(":") + 1) : "";
  const start = m.index + m[0].length;
  const end = text.indexOf(`</${tag}>`, start);
  if (end < 0) return undefined;
  let body = text.slice(start, end);
  const lineIndent = /\n([ \t]*)<[^/]/.exec(body)?.[1] ?? "  ";
  body = body.replace(/\n[ \t]*<q:coverage\b[^>]*\/>/g, "");
  const lines = paths.map((p) => `<q:coverage path="${p.path}" flows="${p.flows.join(" ")}"/>`);
  const ext = new RegExp(`<${escapeRegExp(prefix)}extensionElements>`);
  const firstChild = /^\s*<([\w:]+)/.exec(body)?.[1];
  if (firstChild === `${prefix}extensionElements` && ext.test(body)) {
    body = body.replace(ext, (x) => x + lines.map((l) => `\n${lineIndent}  ${l}`).join(""));
  } else {
    body = `\n${lineIndent}<${prefix}extensionElements>` +
      lines.map((l) => `\n${lineIndent}  ${l}`).join("") +
      `\n${lineIndent}</${prefix}extensionElements>` + body;
  }
  return text.slice(0, start) + body + text.slice(end);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const STORE_BLOCK = `  - name: ${COVERAGE_STORE_NAME}
    type: sql
    sql:
      # The engine owns this store's tables: no migrations.
      url-ref: \${COVERAGE_DB_URL}
`;

// ---- init, cross-process ------------------------------------------------------

async function initCrossProcess(
  file: string,
  processIds: readonly string[],
  args: CommandArgs,
  out: Out,
): Promise<number> {
  if (processIds.length === 0) throw new UsageError("name the process ids the coverage file spans");
  if (args.flags.force !== true && await exists(file)) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNWRITABLE",
      `${file} exists; nothing was changed — rerun with --force to overwrite it`,
      { source: { uri: file } },
    ));
  }
  const bpmnDir = join(dirname(dirname(file)), "bpmn");
  const found = new Map<string, ProcessPlan>();
  const subscriptions: Subscription[] = [];
  for await (const e of Deno.readDir(bpmnDir)) {
    if (!e.isFile || !e.name.endsWith(".bpmn")) continue;
    const loaded = await loadBpmn(await readInputText(join(bpmnDir, e.name)), { uri: e.name });
    for (const p of loaded.plan?.processes ?? []) found.set(p.id, p);
    subscriptions.push(...loaded.plan?.subscriptions ?? []);
  }
  const missing = processIds.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new UsageError(`no BPMN file under ${bpmnDir} plans process(es) ${missing.join(", ")}`);
  }
  const processes = processIds.map((id) => found.get(id)!);
  const hops = args.flags.single === true ? [] : hopsBetween(processes, subscriptions);
  const stem = file.replace(/^.*coverage\//, "").replace(/\.ya?ml$/, "").replaceAll("/", ":");
  const urn = `urn:sutra:coverage:${stem}`;
  const flowCount = processes.reduce((n, p) => n + p.flows.length, 0);
  const yaml = [
    `# Coverage scaffold for ${processIds.join(", ")} (${urn}).`,
    "# Intra-process adjacency (flow: source -> target):",
    ...processes.flatMap((p) => [
      `#   ${p.id}:`,
      ...p.flows.map((f) => `#     ${f.id}: ${p.nodes[f.source].id} -> ${p.nodes[f.target].id}`),
    ]),
    "# Trim path-1 to the walks you want to watch, name them for their business outcome,",
    "# and set key: to the alias every hop carries. sutra lint checks connectivity.",
    "correlations:",
    "  - id: correlation-1",
    "    key: correlationId",
    ...(hops.length === 0 ? ["    links: []"] : [
      "    links:",
      ...hops.map((h) => `      - { from: ${h.from}, to: ${h.to} }  # channel ${h.channel}`),
    ]),
    "    coverages:",
    "      - path: path-1",
    "        segments:",
    ...processes.map((p) => `          ${p.id}: [${p.flows.map((f) => f.id).join(", ")}]`),
    "",
  ].join("\n");
  await Deno.mkdir(dirname(file), { recursive: true });
  await Deno.writeTextFile(file, yaml);
  out(
    `coverage init: ${file} — ${urn}\n` +
      `  processes: ${processIds.join(", ")}\n` +
      `  intra-process adjacency: ${flowCount} flow(s) across ${processes.length} process(es)\n` +
      `  inter-process hops: ${hops.length}\n` +
      hops.map((h) => `    ${h.from} --${h.channel}--> ${h.to} [${h.kind}]\n`).join("") +
      "  scaffold written — draw connected walks from it (sutra lint validates connectivity)\n",
    { file, urn, processes: processIds, flows: flowCount, hops },
  );
  return 0;
}

interface Hop {
  readonly from: string;
  readonly to: string;
  readonly channel: string;
  /** `spawn` starts an instance; `relay` resumes a parked one. */
  readonly kind: "spawn" | "relay";
}

// A hop: a node of one listed process that sends on a channel (q:send, or a
// task implemented by the channel) and a node of another that subscribes to it.
function hopsBetween(
  processes: readonly ProcessPlan[],
  subscriptions: readonly Subscription[],
): Hop[] {
  const ids = new Set(processes.map((p) => p.id));
  const hops: Hop[] = [];
  for (const p of processes) {
    for (const n of p.nodes) {
      const channels = new Set(
        [
          n.send?.channel,
          n.implementation?.kind === "channel-call" ? n.implementation.channel : undefined,
        ].filter((c): c is string => !!c),
      );
      for (const s of subscriptions) {
        if (!channels.has(s.channel) || s.process === p.id || !ids.has(s.process)) continue;
        hops.push({
          from: `${p.id}:${n.id}`,
          to: `${s.process}:${s.nodeId}`,
          channel: s.channel,
          kind: s.role === "start" ? "spawn" : "relay",
        });
      }
    }
  }
  return hops;
}

// ---- helpers -----------------------------------------------------------------

function onePositional(args: CommandArgs, missing: string): string {
  if (args.positionals.length !== 1) throw new UsageError(missing);
  return args.positionals[0];
}

async function loadBpmnFile(path: string) {
  return await loadBpmn(await readInputText(path), { uri: path });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
