/**
 * libxml2 schema validation through one long-lived worker (see
 * `_xmllint_worker.ts`). The worker is started on first use and never keeps
 * the process alive while idle.
 *
 * @module
 */
import { Worker } from "node:worker_threads";

/** A file put into xmllint's in-memory file system. */
export interface XmllintFile {
  /** Relative path; schemas include each other by it. */
  readonly fileName: string;
  readonly contents: string | Uint8Array;
}

/** A request to the worker. */
export interface XmllintRequest {
  readonly sutraXmllint: true;
  readonly id: number;
  readonly args: readonly string[];
  readonly files: readonly XmllintFile[];
}

/** A message from the worker: a run's result, or its start-up report. */
export interface XmllintReply {
  readonly sutraXmllint: true;
  readonly id?: number;
  readonly exitCode?: number;
  readonly stderr?: string;
  readonly ready?: true;
  readonly failed?: string;
}

/** The result of one xmllint run. */
export interface XmllintRun {
  /** 0 valid, 3/4 invalid documents, 5 schema did not compile, other values failures. */
  readonly exitCode: number;
  /** libxml2's messages, one per line. */
  readonly stderr: string;
}

interface Pending {
  readonly resolve: (run: XmllintRun) => void;
  readonly reject: (error: Error) => void;
}

let worker: Promise<Worker> | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function start(): Promise<Worker> {
  const launched = new Promise<Worker>((resolve, reject) => {
    const w = new Worker(new URL("./_xmllint_worker.ts", import.meta.url));
    const fail = (error: Error) => {
      if (worker === launched) worker = undefined;
      reject(error);
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    w.on("message", (m: XmllintReply) => {
      if (m?.sutraXmllint !== true) return;
      if (m.ready) return resolve(w);
      if (m.failed !== undefined) {
        fail(new Error(`libxml2 could not be loaded: ${m.failed}`));
        w.terminate();
        return;
      }
      const p = pending.get(m.id!);
      if (p === undefined) return;
      pending.delete(m.id!);
      if (pending.size === 0) w.unref();
      p.resolve({ exitCode: m.exitCode!, stderr: m.stderr ?? "" });
    });
    w.on("error", (e: unknown) => fail(e instanceof Error ? e : new Error(String(e))));
    w.on("exit", () => fail(new Error("the libxml2 worker stopped")));
  });
  return launched;
}

/**
 * Runs xmllint with `args` over `files`. Rejects only when libxml2 cannot
 * run at all (the worker failed to load or died).
 */
export async function runXmllint(
  args: readonly string[],
  files: readonly XmllintFile[],
): Promise<XmllintRun> {
  worker ??= start();
  const w = await worker;
  const id = ++nextId;
  if (pending.size === 0) w.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    const request: XmllintRequest = { sutraXmllint: true, id, args, files };
    w.postMessage(request);
  });
}
