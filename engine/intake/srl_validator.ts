/**
 * `.srl` complex validators: the ruleset runs over the payload (bound under
 * its variable name, with `header` beside it) and every `report(code, path,
 * message)` is an issue. A ruleset that cannot complete (fail-closed) is a
 * failed-validator issue, never a silent pass.
 *
 * @module
 */
import { type Issue } from "../core/codec.ts";
import type {
  CompiledValidator,
  ComplexValidatorKind,
  ValidationInput,
} from "../core/validator.ts";
import { evaluate, parseRuleset } from "../../lang/srl/mod.ts";
import { asDiagnostics, issueValue, validatorFailed } from "./_issue_values.ts";
import { payloadPointer } from "./_paths.ts";

/** The `.srl` validator kind. */
export const srlValidatorKind: ComplexValidatorKind = {
  name: ".srl",
  compile(text: string, options): CompiledValidator {
    const parsed = parseRuleset(text, { uri: options.uri });
    if (parsed.diagnostics) return { diagnostics: asDiagnostics(parsed.diagnostics) };
    const ruleset = parsed.ruleset;
    return {
      validator: {
        source: options.uri,
        validate(input: ValidationInput): Promise<readonly Issue[]> {
          const context = { [input.variable]: input.payload, header: input.headers };
          const result = evaluate(ruleset, context, { clock: input.clock });
          if (result.diagnostics) {
            const d = result.diagnostics[0];
            return Promise.resolve([validatorFailed(options.uri, `${d.code}: ${d.message}`)]);
          }
          return Promise.resolve(result.issues.map((i): Issue => {
            const value = issueValue(i.value);
            return {
              code: i.code,
              severity: i.severity,
              path: payloadPointer(i.path, input.variable),
              message: i.message,
              ...(value === undefined ? {} : { value }),
            };
          }));
        },
      },
    };
  },
};
