/**
 * The package layout: which file is which artifact, the local key each one
 * is referenced by (its path under its artifact folder), the URNs folded
 * from folder paths (`schemas/hr/employee/` → `urn:hr:employee`,
 * `coverage/e2e.yaml` → `urn:sutra:coverage:e2e`), and the files that have
 * no place in a package.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { type PackageFiles, sortedPaths } from "./files.ts";

/** The manifest file every package has. */
export const PACKAGE_YAML = "package.yaml";
/** Channel declarations. */
export const CHANNELS_YAML = "channels.yaml";
/** Data store declarations. */
export const DATASTORES_YAML = "datastores.yaml";
/** The file that makes a folder under `schemas/` a codec. */
export const CODEC_MANIFEST = "codec-manifest.yaml";
/** The folder name no artifact folder may use at its first level. */
export const RESERVED_FOLDER = "sutra";

/** A file found under an artifact folder. */
export interface Artifact {
  /** Path in the package (`templates/eu/invoice.hbs`). */
  readonly path: string;
  /** Path under the artifact folder, which references use (`eu/invoice.hbs`). */
  readonly key: string;
}

/** A codec folder under `schemas/`: its files and the name folded from its path. */
export interface CodecFolder {
  /**
   * The folder path under `schemas/` with `/` folded to `:` (`hr:employee`);
   * the codec's URN is `urn:<name>`, or `urn:sutra:codec:<name>` for a
   * bundle kind.
   */
  readonly name: string;
  /** Path of the folder (`schemas/hr/employee`). */
  readonly folder: string;
  /** Package paths of every file in the folder and below it, sorted. */
  readonly files: readonly string[];
}

/** One `migrations/<store>/…/V<n>__<description>.sql` script. */
export interface MigrationScript {
  readonly path: string;
  /** The store folder it belongs to. */
  readonly store: string;
  /** The number after `V`. */
  readonly version: number;
  readonly description: string;
}

/** A cross-process coverage file and its URN. */
export interface CoverageArtifact extends Artifact {
  /** `urn:sutra:coverage:<folders…>:<file name without extension>`. */
  readonly urn: string;
}

/** Where every file of a package belongs. */
export interface PackageLayout {
  /** `package.yaml`, when present. */
  readonly packageYaml?: string;
  readonly channelsYaml?: string;
  readonly datastoresYaml?: string;
  readonly bpmn: readonly Artifact[];
  /** `.dmn` decision models under `rules/`. */
  readonly decisions: readonly Artifact[];
  /** `.srl` rulesets under `rules/`. */
  readonly rulesets: readonly Artifact[];
  /** Derive/compute templates under `scripts/`. */
  readonly scripts: readonly Artifact[];
  /** Output templates under `templates/`. */
  readonly templates: readonly Artifact[];
  readonly codecs: readonly CodecFolder[];
  /** Scripts per store folder, in version order. */
  readonly migrations: ReadonlyMap<string, readonly MigrationScript[]>;
  readonly coverage: readonly CoverageArtifact[];
}

const TEMPLATE_EXTENSIONS = [".hbs", ".xsl", ".xslt"];
// A URN segment: what folding a folder name into `urn:a:b` can carry unescaped.
const URN_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MIGRATION_NAME = /^V(\d+)__(.+)\.sql$/;

/** What {@link classifyLayout} returns. */
export interface LayoutResult {
  readonly layout: PackageLayout;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Sorts every file into its place. Files outside the layout, a reserved
 * first-level `sutra` folder, folder names that cannot fold into a URN and
 * misnamed migration scripts are reported; every other file is classified
 * even then, so one pass reports everything.
 */
export function classifyLayout(files: PackageFiles): LayoutResult {
  const diagnostics: Diagnostic[] = [];
  const out = {
    bpmn: [] as Artifact[],
    decisions: [] as Artifact[],
    rulesets: [] as Artifact[],
    scripts: [] as Artifact[],
    templates: [] as Artifact[],
    coverage: [] as CoverageArtifact[],
    schemaFiles: [] as string[],
    migrations: new Map<string, MigrationScript[]>(),
  };
  const single: { packageYaml?: string; channelsYaml?: string; datastoresYaml?: string } = {};
  const reservedReported = new Set<string>();

  for (const path of sortedPaths(files)) {
    const segments = path.split("/");
    const [top, ...rest] = segments;
    if (rest.length === 0) {
      if (path === PACKAGE_YAML) single.packageYaml = path;
      else if (path === CHANNELS_YAML) single.channelsYaml = path;
      else if (path === DATASTORES_YAML) single.datastoresYaml = path;
      else diagnostics.push(unexpected(path, topLevelHint(path)));
      continue;
    }
    if (!ARTIFACT_FOLDERS.has(top)) {
      diagnostics.push(unexpected(path, `'${top}/' is not a package folder`));
      continue;
    }
    if (rest.length > 1 && rest[0].toLowerCase() === RESERVED_FOLDER) {
      const folder = `${top}/${rest[0]}`;
      if (!reservedReported.has(folder)) {
        reservedReported.add(folder);
        diagnostics.push(diagnostic(
          "SUTRA.CONFIG.PACKAGE.RESERVED_FOLDER",
          `${folder}/ uses the reserved name '${RESERVED_FOLDER}', which belongs to the engine's ` +
            `urn:sutra:* namespace; rename the folder (a deeper '${RESERVED_FOLDER}' folder is fine)`,
          { source: { uri: folder }, attributes: { folder } },
        ));
      }
      continue;
    }
    const key = rest.join("/");
    const name = rest[rest.length - 1];
    switch (top) {
      case "bpmn":
        if (hasExtension(name, [".bpmn"])) out.bpmn.push({ path, key });
        else diagnostics.push(unexpected(path, "bpmn/ holds .bpmn files only"));
        break;
      case "rules":
        if (hasExtension(name, [".dmn"])) out.decisions.push({ path, key });
        else if (hasExtension(name, [".srl"])) out.rulesets.push({ path, key });
        else diagnostics.push(unexpected(path, "rules/ holds .dmn and .srl files only"));
        break;
      case "scripts":
      case "templates":
        if (hasExtension(name, TEMPLATE_EXTENSIONS)) {
          (top === "scripts" ? out.scripts : out.templates).push({ path, key });
        } else {
          diagnostics.push(unexpected(path, `${top}/ holds .hbs, .xsl and .xslt files only`));
        }
        break;
      case "schemas":
        if (rest.length === 1) {
          diagnostics.push(diagnostic(
            "SUTRA.CONFIG.CODEC_LAYOUT.INVALID",
            `${path} is loose under schemas/: a schema file belongs in a codec folder ` +
              "(schemas/<codec>/), which names the codec",
            { source: { uri: path } },
          ));
        } else {
          out.schemaFiles.push(path);
        }
        break;
      case "migrations":
        classifyMigration(path, rest, out.migrations, diagnostics);
        break;
      case "coverage":
        if (!hasExtension(name, [".yaml"])) {
          diagnostics.push(unexpected(path, "coverage/ holds .yaml coverage files only"));
          break;
        }
        if (checkUrnSegments(path, [...rest.slice(0, -1), stem(name)], diagnostics)) {
          const urn = `urn:sutra:coverage:${[...rest.slice(0, -1), stem(name)].join(":")}`;
          out.coverage.push({ path, key, urn });
        }
        break;
    }
  }

  for (const scripts of out.migrations.values()) {
    scripts.sort((a, b) => a.version - b.version);
    for (let k = 1; k < scripts.length; k++) {
      if (scripts[k].version !== scripts[k - 1].version) continue;
      diagnostics.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
        `${scripts[k].path} repeats version ${scripts[k].version} of ${scripts[k - 1].path}; ` +
          "each script of a store needs its own version",
        { source: { uri: scripts[k].path }, attributes: { store: scripts[k].store } },
      ));
    }
  }

  return {
    layout: {
      ...single,
      bpmn: out.bpmn,
      decisions: out.decisions,
      rulesets: out.rulesets,
      scripts: out.scripts,
      templates: out.templates,
      codecs: codecFolders(out.schemaFiles, diagnostics),
      migrations: out.migrations,
      coverage: out.coverage,
    },
    diagnostics,
  };
}

const ARTIFACT_FOLDERS = new Set([
  "bpmn",
  "rules",
  "scripts",
  "templates",
  "schemas",
  "migrations",
  "coverage",
]);

function topLevelHint(path: string): string {
  if (/^(package|channels|datastores)\.yml$/.test(path)) {
    return `name it ${path.replace(/\.yml$/, ".yaml")}`;
  }
  return "only package.yaml, channels.yaml and datastores.yaml sit at the top of a package";
}

function hasExtension(name: string, extensions: readonly string[]): boolean {
  const lower = name.toLowerCase();
  return extensions.some((e) => lower.endsWith(e) && lower.length > e.length);
}

function stem(name: string): string {
  return name.replace(/\.[^.]*$/, "");
}

function checkUrnSegments(
  path: string,
  segments: readonly string[],
  diagnostics: Diagnostic[],
): boolean {
  const bad = segments.find((s) => !URN_SEGMENT.test(s));
  if (bad === undefined) return true;
  diagnostics.push(diagnostic(
    "SUTRA.CONFIG.PACKAGE.FOLDER_NAME_INVALID",
    `'${bad}' in ${path} cannot be part of a URN: use letters, digits, '.', '_' and '-', ` +
      "starting with a letter or digit",
    { source: { uri: path }, attributes: { segment: bad } },
  ));
  return false;
}

function classifyMigration(
  path: string,
  rest: readonly string[],
  migrations: Map<string, MigrationScript[]>,
  diagnostics: Diagnostic[],
): void {
  if (rest.length === 1) {
    diagnostics.push(unexpected(path, "a migration script belongs in migrations/<store>/"));
    return;
  }
  const store = rest[0];
  const name = rest[rest.length - 1];
  const m = MIGRATION_NAME.exec(name);
  if (!m) {
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
      `${path} is not named V<n>__<description>.sql, so its place in the order is unknown`,
      { source: { uri: path }, attributes: { store } },
    ));
    return;
  }
  const list = migrations.get(store) ?? [];
  list.push({ path, store, version: Number.parseInt(m[1], 10), description: m[2] });
  migrations.set(store, list);
}

/**
 * Groups schema files into codec folders. A folder holding a
 * `codec-manifest.yaml` owns everything below it (bundle kinds keep edition
 * subfolders there); any other folder holding files is a codec folder of its
 * own, so the codec layer can say what its manifest lacks.
 */
function codecFolders(paths: readonly string[], diagnostics: Diagnostic[]): CodecFolder[] {
  const dirOf = (p: string) => p.slice(0, p.lastIndexOf("/"));
  const manifestDirs = paths.filter((p) => p.endsWith(`/${CODEC_MANIFEST}`)).map(dirOf);
  // The outermost manifest folder above a file owns it.
  const owner = (dir: string): string =>
    manifestDirs.filter((m) => dir === m || dir.startsWith(`${m}/`))
      .sort((a, b) => a.length - b.length)[0] ?? dir;
  const groups = new Map<string, string[]>();
  for (const p of paths) {
    const folder = owner(dirOf(p));
    const list = groups.get(folder) ?? [];
    list.push(p);
    groups.set(folder, list);
  }
  const folders: CodecFolder[] = [];
  for (const [folder, files] of groups) {
    const segments = folder.split("/").slice(1);
    if (!checkUrnSegments(folder, segments, diagnostics)) continue;
    folders.push({ name: segments.join(":"), folder, files });
  }
  return folders.sort((a, b) => (a.folder < b.folder ? -1 : 1));
}

function unexpected(path: string, hint: string): Diagnostic {
  return diagnostic(
    "SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED",
    `${path} has no place in a package: ${hint}`,
    { source: { uri: path } },
  );
}
