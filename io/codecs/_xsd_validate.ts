/**
 * Validating documents against a compiled XSD set, batched. libxml2 reads
 * the schema on every run, and reading it costs more than validating a
 * small document; so while a run is in flight, documents for the same
 * schema queue up and the next run validates all of them against one read
 * of the schema. An idle channel pays no wait: a document arriving with
 * nothing in flight runs at once.
 *
 * @module
 */
import { runXmllint, type XmllintFile, type XmllintRun } from "./_xmllint.ts";

/** A schema to validate against: every file, and the one that is the entry point. */
export interface SchemaFiles {
  /** File name (among `files`) passed to `--schema`. */
  readonly main: string;
  readonly files: readonly XmllintFile[];
}

/** The file name a document's messages are reported under. */
export const DOCUMENT = "payload.xml";

interface Waiting {
  readonly document: string;
  readonly resolve: (run: XmllintRun) => void;
  readonly reject: (error: Error) => void;
}

// Bounds a batch so one run's memory stays modest.
const MAX_BATCH_DOCUMENTS = 64;
const MAX_BATCH_CHARS = 4 << 20;

const queues = new Map<SchemaFiles, Waiting[]>();
let inFlight = 0;

/**
 * Validates `document` against `schema`. The result reads as if the
 * document had been validated alone under the name {@link DOCUMENT}: 0
 * valid, 3 invalid, 1 not well-formed, anything else a failure of the run
 * itself (5: the schema did not compile). Rejects only when libxml2 cannot
 * run at all.
 */
export function validateDocument(schema: SchemaFiles, document: string): Promise<XmllintRun> {
  return new Promise((resolve, reject) => {
    const queue = queues.get(schema);
    if (queue) queue.push({ document, resolve, reject });
    else queues.set(schema, [{ document, resolve, reject }]);
    if (inFlight === 0) dispatch();
  });
}

function dispatch(): void {
  for (const [schema, queue] of queues) {
    let chars = 0;
    let count = 0;
    while (count < queue.length && count < MAX_BATCH_DOCUMENTS) {
      chars += queue[count].document.length;
      count++;
      if (chars >= MAX_BATCH_CHARS) break;
    }
    const batch = queue.splice(0, count);
    if (queue.length === 0) queues.delete(schema);
    inFlight++;
    run(schema, batch).finally(() => {
      inFlight--;
      if (inFlight === 0 && queues.size > 0) dispatch();
    });
  }
}

async function run(schema: SchemaFiles, batch: readonly Waiting[]): Promise<void> {
  const names = batch.map((_, i) => `d${i}.xml`);
  let result: XmllintRun;
  try {
    result = await runXmllint(
      ["--schema", schema.main, "--noout", ...names],
      [...schema.files, ...batch.map((w, i) => ({ fileName: names[i], contents: w.document }))],
    );
  } catch (e) {
    for (const w of batch) w.reject(e instanceof Error ? e : new Error(String(e)));
    return;
  }
  const lines = result.stderr.split("\n");
  batch.forEach((w, i) => w.resolve(ownRun(names[i], lines, result.exitCode)));
}

/** One document's share of a batched run. */
function ownRun(name: string, lines: readonly string[], exitCode: number): XmllintRun {
  const own = lines.filter((l) => l.startsWith(`${name}:`) || l.startsWith(`${name} `));
  const stderr = own.map((l) => DOCUMENT + l.slice(name.length)).join("\n");
  if (own.some((l) => l.includes("parser error"))) return { exitCode: 1, stderr };
  if (own.includes(`${name} validates`)) return { exitCode: 0, stderr };
  if (own.includes(`${name} fails to validate`)) return { exitCode: 3, stderr };
  return {
    exitCode: exitCode === 0 || exitCode === 3 || exitCode === 4 ? -1 : exitCode,
    stderr: lines.join("\n"),
  };
}
