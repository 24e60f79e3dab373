/**
 * Reading one instance's history back out of JSONL audit files, offline:
 * what `sutra audit-replay` prints. A path is a single `.jsonl` file or a
 * directory walked recursively (every tenant, target and rotated file
 * under it). Records are ordered by their sequence number, which the
 * engine carries in the instance's snapshot, so the order is the
 * instance's own whatever file, replica or day a record landed in; a
 * record seen twice (a copied file) is printed once.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { errorMessage } from "../../core/errors.ts";
import { type AuditRecord, parseAuditRecord } from "./record.ts";

/** Where to stop: after the first event of a type, or after the last event at or before an instant. */
export type ReplayUntil =
  | { readonly type: string }
  | { readonly at: number };

/** Options for {@link replayInstance}. */
export interface ReplayOptions {
  readonly instanceId: string;
  /** Only records of this tenant. */
  readonly tenant?: string;
  readonly until?: ReplayUntil;
}

/** What a replay found. */
export interface Replay {
  readonly records: readonly AuditRecord[];
  /** Lines that were not audit records (file and line), skipped. */
  readonly skipped: readonly string[];
}

function inputInvalid(message: string, path: string): DiagnosticError {
  return new DiagnosticError(
    diagnostic("SUTRA.AUDIT.REPLAY_INPUT_INVALID", message, { attributes: { path } }),
  );
}

/**
 * Parses `--until`: an ISO-8601 instant with a zone (`2026-12-02T10:00:00Z`)
 * stops after the last event at or before it; anything else is an event
 * type, written as the engine writes it (`instance.completed`) or as the
 * book spells it (`INSTANCE_COMPLETED`).
 */
export function parseUntil(text: string): ReplayUntil {
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at) || !/(Z|[+-]\d{2}:\d{2})$/i.test(text)) {
      throw inputInvalid(`--until '${text}' is not an ISO-8601 instant with a zone`, text);
    }
    return { at };
  }
  if (!/^[A-Za-z][A-Za-z0-9_.]*$/.test(text)) {
    throw inputInvalid(`--until '${text}' is neither an instant nor an event type`, text);
  }
  return { type: normalizedType(text) };
}

function normalizedType(type: string): string {
  return type.toLowerCase().replaceAll("_", ".");
}

async function* files(path: string): AsyncGenerator<string> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw inputInvalid(`'${path}' cannot be read: ${errorMessage(e)}`, path);
  }
  if (info.isFile) {
    yield path;
    return;
  }
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(path)) entries.push(e);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const child = `${path}/${e.name}`;
    if (e.isDirectory) yield* files(child);
    else if (e.isFile && e.name.endsWith(".jsonl")) yield child;
  }
}

/** One instance's audit records from a JSONL file or directory, in order. */
export async function replayInstance(path: string, options: ReplayOptions): Promise<Replay> {
  const bySeq = new Map<number, AuditRecord>();
  const skipped: string[] = [];
  for await (const file of files(path)) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (e) {
      throw inputInvalid(`'${file}' cannot be read: ${errorMessage(e)}`, file);
    }
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() === "" || !line.includes(options.instanceId)) continue;
      const record = parseAuditRecord(line);
      if (!record) {
        skipped.push(`${file}:${i + 1}`);
        continue;
      }
      if (record.instanceId !== options.instanceId) continue;
      if (options.tenant !== undefined && record.tenant !== options.tenant) continue;
      if (!bySeq.has(record.seq)) bySeq.set(record.seq, record);
    }
  }
  const ordered = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  return { records: cut(ordered, options.until), skipped };
}

function cut(records: AuditRecord[], until: ReplayUntil | undefined): AuditRecord[] {
  if (until === undefined) return records;
  if ("at" in until) return records.filter((r) => Date.parse(r.at) <= until.at);
  const stop = records.findIndex((r) => normalizedType(r.type) === until.type);
  return stop < 0 ? records : records.slice(0, stop + 1);
}
