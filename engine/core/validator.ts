/**
 * The validator SPI behind `q:validators`. Two registries, both keyed by
 * what a BPMN author writes:
 *
 * - complex validator kinds, by file extension (`.srl`, `.dmn`): compile a
 *   rules file once at deploy time into a whole-payload validator;
 * - content validators, by `q:simpleValidator ref`: check the one value a
 *   FEEL path selects.
 *
 * The engine runs a chain through these interfaces without knowing which
 * rule language or which field standard sits behind an entry.
 *
 * @module
 */
import type { Clock } from "./clock.ts";
import type { Issue } from "./codec.ts";
import type { Diagnostic, Severity } from "./diagnostic.ts";
import { Registry } from "./registry.ts";

/** What every validator of a chain reads: the same payload projection for all. */
export interface ValidationInput {
  /** The decoded payload. */
  readonly payload: unknown;
  /** The variable the payload is bound to (`payload` unless the q:source names another). */
  readonly variable: string;
  /** Transport headers of the inbound, by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The message type the codec recognised. */
  readonly messageType?: string;
  /** The engine's clock: the only "now" a validator may read. */
  readonly clock: Clock;
}

/** A compiled whole-payload validator. */
export interface ComplexValidator {
  /** The source it was compiled from, as the BPMN names it. */
  readonly source: string;
  /** Every issue the payload has; a throw is reported as a failed validator, never skipped. */
  validate(input: ValidationInput): Promise<readonly Issue[]>;
}

/** Options for {@link ComplexValidatorKind.compile}. */
export interface CompileValidatorOptions {
  /** The file's package-relative path, for diagnostics. */
  readonly uri: string;
  /** What followed `#` in the source (a decision id), if anything. */
  readonly fragment?: string;
}

/** What {@link ComplexValidatorKind.compile} returns: a validator, or every error. */
export type CompiledValidator =
  | { readonly validator: ComplexValidator; readonly diagnostics?: undefined }
  | { readonly validator?: undefined; readonly diagnostics: readonly Diagnostic[] };

/** A rules language a `q:complexValidator` file may be written in. */
export interface ComplexValidatorKind {
  /** The file extension it handles, with the dot (`.srl`). */
  readonly name: string;
  /** Compiles a rules file (deploy time). Never throws. */
  compile(text: string, options: CompileValidatorOptions): CompiledValidator;
}

/** Every complex validator kind linked into the process. */
export const complexValidatorKinds: Registry<ComplexValidatorKind> = new Registry(
  "complex validator kind",
);

/** One problem a content validator found with a value. */
export interface ContentFinding {
  readonly code: string;
  readonly message: string;
  /** ERROR unless given. */
  readonly severity?: Severity;
}

/** A field-content check named by `q:simpleValidator ref`. */
export interface ContentValidator {
  readonly name: string;
  /** Checks the value the path selected (plain JS data, `null` when absent). */
  check(value: unknown): readonly ContentFinding[];
}

/** Every content validator linked into the process. */
export const contentValidators: Registry<ContentValidator> = new Registry("content validator");
