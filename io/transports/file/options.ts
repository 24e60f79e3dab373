/**
 * The `options:` of a `transport: file` channel, checked and resolved to
 * absolute paths. Every problem is reported at once, each naming the
 * channel and the option.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";
import { parseDurationMillis } from "../../../engine/core/duration.ts";
import type { ChannelDeclaration } from "../../../engine/core/transport.ts";

/** A file channel's settings, ready to use. */
export interface FileChannelOptions {
  /** The watched directory (absolute). */
  readonly directory: string;
  /** Where claimed files sit while they run; one sub-folder per running consumer. */
  readonly processing: string;
  readonly done: string;
  readonly failed: string;
  readonly pollMs: number;
  /** Which file names are messages (compiled from the `pattern` glob). */
  readonly pattern: RegExp;
  /** Overrides the content type the file's extension suggests. */
  readonly contentType?: string;
}

const KNOWN = new Set([
  "directory",
  "processing",
  "done",
  "failed",
  "poll-interval",
  "pattern",
  "content-type",
]);

/** The default poll interval. */
export const DEFAULT_POLL_MS = 1000;

function invalid(channel: string, option: string, why: string): Diagnostic {
  return diagnostic(
    "SUTRA.FILE.OPTIONS_INVALID",
    `file channel '${channel}': option '${option}' ${why}`,
    { attributes: { channel, option } },
  );
}

/** A glob (`*`, `?`) as an anchored regular expression over a whole file name. */
export function globPattern(glob: string): RegExp {
  const body = [...glob].map((c) =>
    c === "*" ? "[^/]*" : c === "?" ? "[^/]" : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  ).join("");
  return new RegExp(`^${body}$`);
}

/** The channel's options, or every reason they cannot be used. */
export function fileChannelOptions(
  declaration: ChannelDeclaration,
  cwd: string = Deno.cwd(),
): FileChannelOptions | Diagnostic[] {
  const name = declaration.name;
  const raw = declaration.options ?? {};
  const problems: Diagnostic[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) {
      problems.push(invalid(name, key, `is not a file-channel option (${[...KNOWN].join(", ")})`));
    }
  }
  const text = (key: string): string | undefined => {
    const value = raw[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.trim() === "") {
      problems.push(invalid(name, key, "must be a non-empty string"));
      return undefined;
    }
    return value.trim();
  };
  const directory = text("directory");
  if (directory === undefined && raw.directory === undefined) {
    problems.push(invalid(name, "directory", "is required: the directory the channel watches"));
  }
  const base = resolve(cwd, directory ?? ".");
  const folder = (key: string, fallback: string): string => {
    const value = text(key) ?? fallback;
    const path = isAbsolute(value) ? value : join(base, value);
    if (resolve(path) === base) problems.push(invalid(name, key, "must differ from 'directory'"));
    return resolve(path);
  };
  const processing = folder("processing", "processing");
  const done = folder("done", "done");
  const failed = folder("failed", "failed");
  if (new Set([processing, done, failed]).size < 3) {
    problems.push(invalid(name, "processing", "and 'done' and 'failed' must be three folders"));
  }
  let pollMs = DEFAULT_POLL_MS;
  const poll = text("poll-interval");
  if (poll !== undefined) {
    const ms = parseDurationMillis(poll);
    if (ms === undefined || ms <= 0) {
      problems.push(
        invalid(name, "poll-interval", `'${poll}' is not a positive ISO-8601 duration`),
      );
    } else pollMs = ms;
  }
  const glob = text("pattern") ?? "*";
  if (glob.includes("/")) problems.push(invalid(name, "pattern", "matches file names, not paths"));
  const contentType = text("content-type");
  if (contentType !== undefined && !/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/.test(contentType)) {
    problems.push(invalid(name, "content-type", `'${contentType}' is not a media type`));
  }
  if (problems.length > 0) return problems;
  return {
    directory: base,
    processing,
    done,
    failed,
    pollMs,
    pattern: globPattern(glob),
    ...(contentType === undefined ? {} : { contentType }),
  };
}

const BY_EXTENSION: Readonly<Record<string, string>> = {
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv",
  txt: "text/plain",
};

/** The content type of a picked file: the channel's, else by extension, else bytes. */
export function contentTypeOf(options: FileChannelOptions, fileName: string): string {
  if (options.contentType) return options.contentType;
  const extension = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? "";
  return BY_EXTENSION[extension] ?? "application/octet-stream";
}

/**
 * True for a name the write-then-rename contract reserves for files still
 * being written: dot-files and `.tmp`/`.part` names are never picked.
 */
export function isPartialName(fileName: string): boolean {
  return fileName.startsWith(".") || /\.(tmp|part)$/i.test(fileName);
}
