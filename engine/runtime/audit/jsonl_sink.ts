/**
 * The JSONL audit sink: committed steps' audit records appended as JSON
 * lines under one directory per tenant, so a log shipper can apply each
 * tenant's own index and retention without the engine knowing of them.
 *
 * ```
 * <dir>/<tenant>/[<target>/]<YYYY-MM-DD>.<replica>.<NNNN>.jsonl
 * ```
 *
 * - `<tenant>` and `<target>` (the process's `q:audit target`, when set)
 *   are single path segments: any character outside `A–Z a–z 0–9 _ -` is
 *   percent-encoded, so no label can climb out of the directory;
 * - a file holds one UTC day (the day of its events' step) and is rotated
 *   to the next number before it would pass `maxFileBytes`; a restarted
 *   engine continues after the highest number it finds;
 * - every replica writes its own files (`<replica>` in the name), so several
 *   engines can share one directory without interleaving lines.
 *
 * Writes happen off the step: records are queued and appended in order by
 * one writer. A write that fails is logged (`SUTRA.AUDIT.SINK_FAILED`) and
 * its records stay queued for the next attempt, up to `maxQueued` batches;
 * beyond that the oldest are dropped, loudly. The engine database's journal
 * (`sutra.audit.sql`) is the transactional record; this sink follows it.
 *
 * @module
 */
import type { Logger } from "../../core/log.ts";
import { errorMessage } from "../../core/errors.ts";
import type { AuditRecord } from "./record.ts";

/** Options for {@link JsonlAuditSink}. */
export interface JsonlSinkOptions {
  /** The root directory; tenant directories are created in it. */
  readonly dir: string;
  /** A file is rotated before it would grow past this many bytes. */
  readonly maxFileBytes: number;
  /** This replica's id, part of every file name. */
  readonly replicaId: string;
  readonly logger?: Logger;
  /** Batches held while writes fail (default 10 000). */
  readonly maxQueued?: number;
}

interface OpenFile {
  readonly day: string;
  index: number;
  size: number;
  file: Deno.FsFile;
}

interface Batch {
  readonly tenant: string;
  readonly target?: string;
  readonly records: readonly AuditRecord[];
}

const encoder = new TextEncoder();

/**
 * A label as one safe path segment (`acme.eu` → `acme%2Eeu`); the empty
 * label is a lone `%`, which no encoded label can be.
 */
export function pathSegment(label: string): string {
  return label === ""
    ? "%"
    : [...encoder.encode(label)].map((b) =>
      /[A-Za-z0-9_-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`
    ).join("");
}

/** Appends audit records as JSON lines, per tenant, rotating by day and size. */
export class JsonlAuditSink {
  readonly #options: JsonlSinkOptions;
  readonly #open = new Map<string, OpenFile>();
  readonly #queue: Batch[] = [];
  #draining?: Promise<void>;
  #closed = false;

  constructor(options: JsonlSinkOptions) {
    this.#options = options;
  }

  /** Queues a step's records for `tenant` (under `target`, when the process names one). */
  write(tenant: string, records: readonly AuditRecord[], target?: string): void {
    if (records.length === 0 || this.#closed) return;
    this.#queue.push(target === undefined ? { tenant, records } : { tenant, target, records });
    const max = this.#options.maxQueued ?? 10_000;
    if (this.#queue.length > max) {
      const dropped = this.#queue.splice(0, this.#queue.length - max);
      this.#options.logger?.error("audit records dropped: the JSONL sink cannot keep up", {
        code: "SUTRA.AUDIT.SINK_FAILED",
        droppedSteps: dropped.length,
      });
    }
    this.#drain();
  }

  /** Resolves once everything queued so far was written (or failed and stays queued). */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
    if (this.#queue.length > 0) {
      this.#drain();
      while (this.#draining) await this.#draining;
    }
  }

  /** Writes what is queued and closes every file. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    for (const open of this.#open.values()) open.file.close();
    this.#open.clear();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = (async () => {
      try {
        while (this.#queue.length > 0) {
          const batch = this.#queue[0];
          try {
            await this.#append(batch);
          } catch (e) {
            this.#options.logger?.error("the JSONL audit sink could not write", {
              code: "SUTRA.AUDIT.SINK_FAILED",
              tenant: batch.tenant,
              error: errorMessage(e),
            });
            return; // stays queued: the next write or flush tries again
          }
          this.#queue.shift();
        }
      } finally {
        this.#draining = undefined;
      }
    })();
  }

  async #append(batch: Batch): Promise<void> {
    const byDay = new Map<string, string>();
    for (const r of batch.records) {
      const day = r.at.slice(0, 10);
      byDay.set(day, (byDay.get(day) ?? "") + JSON.stringify(r) + "\n");
    }
    const dir = [this.#options.dir, pathSegment(batch.tenant)];
    if (batch.target !== undefined) dir.push(pathSegment(batch.target));
    for (const [day, text] of byDay) {
      const bytes = encoder.encode(text);
      const file = await this.#fileFor(dir.join("/"), day, bytes.length);
      let written = 0;
      while (written < bytes.length) written += await file.file.write(bytes.subarray(written));
      file.size += bytes.length;
    }
  }

  /** The file a write of `length` bytes for `day` goes to, rotating as needed. */
  async #fileFor(dir: string, day: string, length: number): Promise<OpenFile> {
    let open = this.#open.get(dir);
    if (open && open.day !== day) {
      open.file.close();
      this.#open.delete(dir);
      open = undefined;
    }
    if (!open) {
      await Deno.mkdir(dir, { recursive: true });
      const index = await this.#lastIndex(dir, day);
      open = await this.#openFile(dir, day, index);
      this.#open.set(dir, open);
    }
    if (open.size > 0 && open.size + length > this.#options.maxFileBytes) {
      open.file.close();
      open = await this.#openFile(dir, day, open.index + 1);
      this.#open.set(dir, open);
    }
    return open;
  }

  async #openFile(dir: string, day: string, index: number): Promise<OpenFile> {
    const path = `${dir}/${this.#fileName(day, index)}`;
    const file = await Deno.open(path, { append: true, create: true });
    const size = (await file.stat()).size;
    return { day, index, size, file };
  }

  #fileName(day: string, index: number): string {
    return `${day}.${pathSegment(this.#options.replicaId)}.${String(index).padStart(4, "0")}.jsonl`;
  }

  /** The highest file number this replica already wrote for `day` (1 when none). */
  async #lastIndex(dir: string, day: string): Promise<number> {
    const prefix = `${day}.${pathSegment(this.#options.replicaId)}.`;
    let last = 1;
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.startsWith(prefix) || !e.name.endsWith(".jsonl")) continue;
      const n = Number(e.name.slice(prefix.length, -6));
      if (Number.isInteger(n) && n > last) last = n;
    }
    return last;
  }
}
