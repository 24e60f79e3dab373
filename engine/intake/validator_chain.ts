/**
 * A `q:validators` chain: compiled once at deploy time, run on every
 * inbound after decoding. Entries run in declaration order over the same
 * payload; every entry's issues are appended, none replaces another, and a
 * validator that fails is reported as an issue rather than skipped.
 *
 * @module
 */
import type { QValidator } from "../bpmn/q_model.ts";
import type { Issue } from "../core/codec.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { Registry } from "../core/registry.ts";
import {
  type ComplexValidator,
  type ComplexValidatorKind,
  complexValidatorKinds,
  type ContentValidator,
  contentValidators,
  type ValidationInput,
} from "../core/validator.ts";
import { compile, type CompiledExpression, toJs } from "../../lang/feel/mod.ts";
import { issueValue, validatorFailed } from "./_issue_values.ts";
import { payloadPointer } from "./_paths.ts";
import { errorMessage } from "../core/errors.ts";

/** One compiled entry. */
export type ChainEntry =
  | {
    readonly kind: "complex";
    /** The `source` as written. */
    readonly source: string;
    readonly validator: ComplexValidator;
  }
  | {
    readonly kind: "simple";
    readonly ref: string;
    /** The FEEL path as written. */
    readonly path: string;
    readonly expression: CompiledExpression;
    readonly validator: ContentValidator;
  };

/** A compiled chain, in declaration order. */
export interface ValidatorChain {
  readonly entries: readonly ChainEntry[];
}

/** The chain of a `q:source` without `q:validators`. */
export const EMPTY_CHAIN: ValidatorChain = { entries: [] };

/** Options for {@link compileValidatorChain}. */
export interface CompileChainOptions {
  /** Package files by package-relative path; a source is looked up under `rules/` first. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** The variable the payload is bound to (the q:source `name`). */
  readonly variable: string;
  /** The BPMN file the chain is declared in, for diagnostics. */
  readonly uri: string;
  /** Complex validator kinds (defaults to the process-wide registry). */
  readonly kinds?: Registry<ComplexValidatorKind>;
  /** Content validators (defaults to the process-wide registry). */
  readonly contents?: Registry<ContentValidator>;
}

/** A chain, or every reason it cannot be built. */
export type ChainResult =
  | { readonly chain: ValidatorChain; readonly diagnostics?: undefined }
  | { readonly chain?: undefined; readonly diagnostics: readonly Diagnostic[] };

const decoder = new TextDecoder();

/** Compiles a `q:validators` list; reports every problem of every entry. */
export function compileValidatorChain(
  validators: readonly QValidator[],
  options: CompileChainOptions,
): ChainResult {
  const kinds = options.kinds ?? complexValidatorKinds;
  const contents = options.contents ?? contentValidators;
  const entries: ChainEntry[] = [];
  const problems: Diagnostic[] = [];
  for (const v of validators) {
    const where = { uri: options.uri, line: v.line, column: v.column };
    if (v.kind === "complex") {
      const built = complexEntry(v.source, where, kinds, options.files);
      if ("validator" in built) entries.push(built);
      else problems.push(...built);
      continue;
    }
    const validator = contents.get(v.ref);
    if (validator === undefined) {
      problems.push(
        diagnostic(
          "SUTRA.CONFIG.VALIDATOR.UNKNOWN",
          `no content validator '${v.ref}' is linked in this build (linked: ${
            contents.names().join(", ") || "none"
          })`,
          { source: where, attributes: { ref: v.ref } },
        ),
      );
      continue;
    }
    const compiled = compile(v.path.text, { names: [options.variable, "header"] });
    if (compiled.diagnostics) {
      problems.push(
        diagnostic(
          "SUTRA.CONFIG.VALIDATOR.PATH_INVALID",
          `the path '${v.path.text}' of validator '${v.ref}' is not FEEL: ${
            compiled.diagnostics[0].message
          }`,
          { source: { uri: options.uri, line: v.path.line, column: v.path.column } },
        ),
      );
      continue;
    }
    entries.push({
      kind: "simple",
      ref: v.ref,
      path: v.path.text,
      expression: compiled.compiled,
      validator,
    });
  }
  return problems.length > 0 ? { diagnostics: problems } : { chain: { entries } };
}

function complexEntry(
  source: string,
  where: { uri: string; line: number; column: number },
  kinds: Registry<ComplexValidatorKind>,
  files: ReadonlyMap<string, Uint8Array>,
): ChainEntry | Diagnostic[] {
  const hash = source.indexOf("#");
  const file = hash < 0 ? source : source.slice(0, hash);
  const fragment = hash < 0 ? undefined : source.slice(hash + 1);
  const dot = file.lastIndexOf(".");
  const kind = dot < 0 ? undefined : kinds.get(file.slice(dot).toLowerCase());
  if (kind === undefined) {
    return [
      diagnostic(
        "SUTRA.CONFIG.VALIDATOR.KIND_UNKNOWN",
        `'${source}' is not a rules file this build can run (linked kinds: ${
          kinds.names().join(", ") || "none"
        })`,
        { source: where, attributes: { source } },
      ),
    ];
  }
  const path = [`rules/${file}`, file].find((p) => files.has(p));
  if (path === undefined) {
    return [
      diagnostic(
        "SUTRA.CONFIG.VALIDATOR.SOURCE_MISSING",
        `the validator '${source}' names no file of the package (looked for rules/${file} and ${file})`,
        { source: where, attributes: { source } },
      ),
    ];
  }
  const compiled = kind.compile(decoder.decode(files.get(path)!), { uri: path, fragment });
  if (compiled.diagnostics) return [...compiled.diagnostics];
  return { kind: "complex", source, validator: compiled.validator };
}

/**
 * Runs every entry in declaration order over the same input and returns the
 * accumulated issues. Never throws: a failing validator becomes a
 * `SUTRA.VALIDATE.VALIDATOR_FAILED` issue in its place.
 */
export async function runValidatorChain(
  chain: ValidatorChain,
  input: ValidationInput,
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const entry of chain.entries) {
    if (entry.kind === "complex") {
      issues.push(...await runComplex(entry.source, entry.validator, input));
    } else issues.push(...runSimple(entry, input));
  }
  return issues;
}

async function runComplex(
  source: string,
  validator: ComplexValidator,
  input: ValidationInput,
): Promise<readonly Issue[]> {
  try {
    return await validator.validate(input);
  } catch (e) {
    return [validatorFailed(source, errorMessage(e))];
  }
}

function runSimple(
  entry: Extract<ChainEntry, { kind: "simple" }>,
  input: ValidationInput,
): Issue[] {
  const context = { [input.variable]: input.payload, header: input.headers };
  const evaluated = entry.expression.evaluate(context, { now: () => input.clock.now() });
  if (evaluated.diagnostics) {
    return [validatorFailed(entry.ref, evaluated.diagnostics[0].message)];
  }
  let findings;
  try {
    findings = entry.validator.check(toJs(evaluated.value));
  } catch (e) {
    return [validatorFailed(entry.ref, errorMessage(e))];
  }
  const value = issueValue(evaluated.value);
  return findings.map((f) => ({
    code: f.code,
    severity: f.severity ?? "ERROR",
    path: payloadPointer(entry.path, input.variable),
    message: f.message,
    ...(value === undefined ? {} : { value }),
  }));
}
