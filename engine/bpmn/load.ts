/**
 * The loader: BPMN 2.0 XML in, validated model and execution plan out.
 * Reads the document, checks every q: element against `xsd/q.xsd`, runs the
 * static validation rules and, when nothing is an error, builds the plan.
 * Bad input never throws: every problem is a diagnostic with a line.
 *
 * @module
 */
import { type Diagnostic, diagnostic, hasErrors } from "../core/diagnostic.ts";
import type { Definitions } from "./model.ts";
import { ModelIndex } from "./model_index.ts";
import type { ExecutionPlan } from "./plan.ts";
import { buildPlan } from "./plan_builder.ts";
import { validateQElements } from "./q_schema.ts";
import { readBpmn } from "./reader.ts";
import type { ShapeProvider } from "./shape.ts";
import { validateModel } from "./validate.ts";
import { errorMessage } from "../core/errors.ts";

/** Options for {@link loadBpmn}. */
export interface LoadOptions {
  /** File path or URN put on every diagnostic (default `memory.bpmn`). */
  readonly uri?: string;
  /** Payload and schema shapes, so FEEL paths can be checked against them. */
  readonly shapes?: ShapeProvider;
}

/** What loading produced. */
export interface LoadResult {
  /** True when no diagnostic is an ERROR; `plan` is then present. */
  readonly ok: boolean;
  /** The read model (absent only when the text is not a BPMN document). */
  readonly definitions?: Definitions;
  /** The execution plan of the executable processes. */
  readonly plan?: ExecutionPlan;
  /** Every finding, ordered by position. */
  readonly diagnostics: readonly Diagnostic[];
}

function byPosition(a: Diagnostic, b: Diagnostic): number {
  return (a.source?.line ?? 0) - (b.source?.line ?? 0) ||
    (a.source?.column ?? 0) - (b.source?.column ?? 0) || a.code.localeCompare(b.code);
}

/** Loads, validates and plans a BPMN document. */
export async function loadBpmn(
  input: string | Uint8Array,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const uri = options.uri ?? "memory.bpmn";
  try {
    const read = readBpmn(input, { uri });
    if (!read.definitions || !read.source) {
      return { ok: false, diagnostics: [...read.diagnostics].sort(byPosition) };
    }
    const definitions = read.definitions;
    const index = new ModelIndex(definitions);
    const schema = await validateQElements(read.source, read.qElements, { uri });
    const validation = validateModel(index, read.source, { uri, shapes: options.shapes });
    const diagnostics = [...read.diagnostics, ...schema, ...validation.diagnostics];
    for (const process of definitions.processes) {
      if (index.isExecutable(process)) continue;
      diagnostics.push(diagnostic(
        "SUTRA.CONFIG.BPMN.PROCESS_NOT_EXECUTABLE",
        `process '${process.id}' has isExecutable="false": it is read and described but not planned`,
        { severity: "INFO", source: { uri, line: process.line, column: process.column } },
      ));
    }
    diagnostics.sort(byPosition);
    if (hasErrors(diagnostics)) return { ok: false, definitions, diagnostics };
    const plan = buildPlan(index, { compiled: validation.compiled });
    return { ok: true, definitions, plan, diagnostics };
  } catch (error) {
    // A defect in the loader itself; the caller still gets a diagnostic.
    return {
      ok: false,
      diagnostics: [diagnostic(
        "SUTRA.RUNTIME.UNEXPECTED",
        `the BPMN loader failed: ${errorMessage(error)}`,
        { source: { uri } },
      )],
    };
  }
}
