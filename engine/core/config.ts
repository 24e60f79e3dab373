/**
 * The typed configuration registry. Every setting is a canonical `sutra.*`
 * key mirrored by a `SUTRA_*` environment variable; values come from the
 * environment, then the properties file named by `SUTRA_CONFIG` (default
 * `sutra.properties`), then the key's default. Every invalid value is
 * reported at once as `SUTRA.CONFIG.PROPERTY.INVALID`.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "./diagnostic.ts";
import { formatDurationMillis, parseDurationMillis } from "./duration.ts";
import { parseProperties } from "./properties.ts";
import { errorMessage } from "./errors.ts";

/** The value types a key can have. */
export type ConfigType = "string" | "integer" | "boolean" | "duration" | "enum";

/** What a parsed value of each type looks like (durations are milliseconds). */
interface TypeOf {
  string: string;
  integer: number;
  boolean: boolean;
  duration: number;
  enum: string;
}

/** The declaration of one configuration key. */
export interface ConfigKey<K extends ConfigType = ConfigType> {
  /** Canonical name, `sutra.` followed by lower-case dotted/dashed segments. */
  readonly key: string;
  readonly type: K;
  /** Default when neither env nor file sets it; `undefined` means "unset". */
  readonly default?: TypeOf[K];
  /** One line for docs and `--help`. */
  readonly description: string;
  /** Allowed values for `enum` keys. */
  readonly values?: readonly string[];
  /** Inclusive bounds for `integer` keys and (in milliseconds) `duration` keys. */
  readonly min?: number;
  readonly max?: number;
  /** Extra check; returns a reason when the value is unacceptable. */
  readonly validate?: (value: TypeOf[K]) => string | undefined;
  /** The value is a credential: never logged or echoed. */
  readonly secret?: boolean;
}

/** The environment variable mirroring a canonical key. */
export function envName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, "_");
}

const KEY_SHAPE = /^sutra(\.[a-z0-9]+(-[a-z0-9]+)*)+$/;

/** The set of keys a process knows; modules add theirs with {@link defineKey}. */
export class ConfigRegistry {
  readonly #keys = new Map<string, ConfigKey>();

  /** Declares a key; returns the declaration, which doubles as the typed handle for `Config.get`. */
  define<K extends ConfigType>(declaration: ConfigKey<K>): ConfigKey<K> {
    if (!KEY_SHAPE.test(declaration.key)) {
      throw new Error(`configuration key '${declaration.key}' is not a canonical sutra.* key`);
    }
    if (this.#keys.has(declaration.key)) {
      throw new Error(`configuration key '${declaration.key}' is defined twice`);
    }
    this.#keys.set(declaration.key, declaration as unknown as ConfigKey);
    return declaration;
  }

  /** The declaration of `key`, if known. */
  get(key: string): ConfigKey | undefined {
    return this.#keys.get(key);
  }

  /** Every declaration, sorted by key. */
  list(): ConfigKey[] {
    return [...this.#keys.values()].sort((a, b) => a.key.localeCompare(b.key));
  }
}

/** The process-wide registry. */
export const configKeys: ConfigRegistry = new ConfigRegistry();

/** Declares a key in the process-wide registry. */
export function defineKey<K extends ConfigType>(declaration: ConfigKey<K>): ConfigKey<K> {
  return configKeys.define(declaration);
}

/** Where a resolved value came from. */
export type ConfigSource = "env" | "file" | "default" | "unset";

/**
 * Expands references inside file values (`env:NAME`, `${NAME}`,
 * `${NAME:default}`, `secret:KEY`, …). Supplied by the composition root from
 * the secret-resolver registry; throws a DiagnosticError when unresolvable.
 */
export type ReferenceExpander = (value: string) => Promise<string>;

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Environment to read (defaults to `Deno.env.toObject()`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory the default `sutra.properties` is looked up in. */
  readonly cwd?: string;
  /** Expands references in file values; without it file values are taken literally. */
  readonly expand?: ReferenceExpander;
  /** Keys to resolve (defaults to the process-wide registry). */
  readonly registry?: ConfigRegistry;
}

interface Resolved {
  readonly value: unknown;
  readonly source: ConfigSource;
}

/** Resolved configuration: typed lookups plus where each value came from. */
export class Config {
  readonly #values: Map<string, Resolved>;
  /** Non-fatal findings (unknown keys in the file). */
  readonly warnings: readonly Diagnostic[];
  /** The properties file that was read, if any. */
  readonly file?: string;

  constructor(values: Map<string, Resolved>, warnings: readonly Diagnostic[], file?: string) {
    this.#values = values;
    this.warnings = warnings;
    this.file = file;
  }

  /** The typed value of a key (undefined only for keys without a default that nobody set). */
  get<K extends ConfigType>(key: ConfigKey<K>): TypeOf[K] | undefined;
  get(key: ConfigKey): unknown {
    const resolved = this.#values.get(key.key);
    if (!resolved) throw new Error(`configuration key '${key.key}' was not loaded`);
    return resolved.value;
  }

  /** Like {@link get} for keys that always have a value (a default). */
  require<K extends ConfigType>(key: ConfigKey<K>): TypeOf[K] {
    const value = this.get(key);
    if (value === undefined) throw new Error(`configuration key '${key.key}' has no value`);
    return value;
  }

  /** Where the key's value came from. */
  source(key: { readonly key: string }): ConfigSource {
    return this.#values.get(key.key)?.source ?? "unset";
  }
}

/**
 * Resolves every registered key. Throws a {@link DiagnosticError} listing
 * every invalid value (and an unreadable config file) at once.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<Config> {
  const env = options.env ?? Deno.env.toObject();
  const registry = options.registry ?? configKeys;
  const problems: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];

  const explicitFile = env["SUTRA_CONFIG"];
  const filePath = explicitFile ?? joinPath(options.cwd, "sutra.properties");
  const fileValues = await readPropertiesFile(filePath, explicitFile !== undefined, problems);

  if (fileValues) {
    for (const [key, entry] of fileValues) {
      if (key.startsWith("sutra.") && !registry.get(key)) {
        warnings.push(
          diagnostic("SUTRA.CONFIG.PROPERTY.UNKNOWN", `'${key}' is not a known configuration key`, {
            severity: "WARNING",
            source: { uri: filePath, line: entry.line },
          }),
        );
      }
    }
  }

  const values = new Map<string, Resolved>();
  for (const decl of registry.list()) {
    const fromEnv = env[envName(decl.key)];
    const fromFile = fileValues?.get(decl.key);
    let raw: string | undefined;
    let source: ConfigSource;
    let where: string;
    if (fromEnv !== undefined) {
      raw = fromEnv;
      source = "env";
      where = `environment variable ${envName(decl.key)}`;
    } else if (fromFile !== undefined) {
      source = "file";
      where = `${filePath}:${fromFile.line}`;
      try {
        raw = options.expand ? await options.expand(fromFile.value) : fromFile.value;
      } catch (error) {
        const reason = error instanceof DiagnosticError
          ? error.diagnostics.map((d) => d.message).join("; ")
          : String(error);
        problems.push(invalid(decl, where, `its reference cannot be resolved: ${reason}`));
        continue;
      }
    } else {
      values.set(decl.key, {
        value: decl.default,
        source: decl.default === undefined ? "unset" : "default",
      });
      continue;
    }
    const parsed = parseValue(decl, raw);
    if ("error" in parsed) {
      problems.push(invalid(decl, where, parsed.error, decl.secret ? undefined : raw));
      continue;
    }
    values.set(decl.key, { value: parsed.value, source });
  }

  if (problems.length > 0) throw new DiagnosticError(problems);
  return new Config(values, warnings, fileValues ? filePath : undefined);
}

function invalid(decl: ConfigKey, where: string, reason: string, raw?: string): Diagnostic {
  const shown = raw === undefined ? "" : ` '${raw}'`;
  return diagnostic(
    "SUTRA.CONFIG.PROPERTY.INVALID",
    `${decl.key}${shown} (from ${where}) is invalid: ${reason}`,
    { attributes: { key: decl.key, env: envName(decl.key) } },
  );
}

/** Parses and validates one raw value. */
export function parseValue(decl: ConfigKey, raw: string): { value: unknown } | { error: string } {
  const text = raw.trim();
  let value: unknown;
  switch (decl.type) {
    case "string":
      value = raw;
      break;
    case "integer":
      if (!/^[+-]?\d+$/.test(text)) return { error: "expected an integer" };
      value = Number(text);
      if (!Number.isSafeInteger(value)) return { error: "integer out of range" };
      break;
    case "boolean":
      if (text === "true") value = true;
      else if (text === "false") value = false;
      else return { error: "expected true or false" };
      break;
    case "duration": {
      const millis = parseDurationMillis(text);
      if (millis === undefined) {
        return {
          error: "expected an ISO-8601 duration in days/hours/minutes/seconds such as PT30S",
        };
      }
      value = millis;
      break;
    }
    case "enum":
      if (!decl.values?.includes(text)) {
        return { error: `expected one of ${decl.values?.join(", ")}` };
      }
      value = text;
      break;
  }
  if (typeof value === "number") {
    const show = (n: number) => decl.type === "duration" ? formatDurationMillis(n) : String(n);
    if (decl.min !== undefined && value < decl.min) {
      return { error: `must be at least ${show(decl.min)}` };
    }
    if (decl.max !== undefined && value > decl.max) {
      return { error: `must be at most ${show(decl.max)}` };
    }
  }
  const reason = decl.validate?.(value as never);
  if (reason) return { error: reason };
  return { value };
}

async function readPropertiesFile(
  path: string,
  required: boolean,
  problems: Diagnostic[],
): Promise<Map<string, { value: string; line: number }> | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound && !required) return undefined;
    problems.push(
      diagnostic(
        "SUTRA.CONFIG.FILE.UNREADABLE",
        `cannot read configuration file ${path}: ${errorMessage(error)}`,
        { source: { uri: path } },
      ),
    );
    return undefined;
  }
  const { entries, errors } = parseProperties(text);
  for (const e of errors) {
    problems.push(
      diagnostic("SUTRA.CONFIG.FILE.UNREADABLE", e.message, {
        source: { uri: path, line: e.line },
      }),
    );
  }
  return entries;
}

function joinPath(dir: string | undefined, file: string): string {
  return dir ? `${dir.replace(/\/+$/, "")}/${file}` : file;
}
