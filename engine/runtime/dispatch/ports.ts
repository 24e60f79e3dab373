/**
 * The executor's ports for a deployment: the engine clock, the package's
 * own templates (`templates/`) and its decisions and rulesets (`rules/`:
 * `.dmn` models and `.srl` files). Built once per deployment.
 *
 * @module
 */
import { evaluateDecision } from "../../../lang/dmn/mod.ts";
import { FeelContext } from "../../../lang/feel/mod.ts";
import { evaluate as evaluateRuleset } from "../../../lang/srl/mod.ts";
import type { Clock } from "../../core/clock.ts";
import type { DecisionOutcome, DecisionRequest, Ports } from "../../executor/mod.ts";
import type { LoadedPackage } from "../../package/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";

const cache = new WeakMap<ActiveDeployment, Ports>();

/** The ports steps of `deployment`'s instances run with. */
export function portsFor(deployment: ActiveDeployment, clock: Clock): Ports {
  let ports = cache.get(deployment);
  if (!ports) {
    const templates = deployment.package.templates;
    ports = {
      clock,
      templates: {
        render({ template, variables }) {
          const r = templates.render(template, new FeelContext(new Map(variables)));
          // The executor turns a throw into a failed attempt of the rendering task.
          if (r.diagnostics) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
          return { body: r.body, contentType: r.contentType };
        },
      },
      decisions: { evaluate: (request) => decide(deployment.package, request, clock) },
    };
    cache.set(deployment, ports);
  }
  return ports;
}

const failed = (message: string): DecisionOutcome => ({
  failure: { code: "SUTRA.RUNTIME.TASK.FAILED", message },
});

/** Evaluates a `.srl` ruleset or a `.dmn` decision of the package. */
function decide(pkg: LoadedPackage, request: DecisionRequest, clock: Clock): DecisionOutcome {
  const inputs = new FeelContext(new Map(request.inputs));
  if (request.source.endsWith(".srl")) {
    const ruleset = pkg.rulesets.get(request.source);
    if (!ruleset) return failed(`the package has no ruleset '${request.source}'`);
    const r = evaluateRuleset(ruleset, inputs, { clock });
    if (r.diagnostics) {
      return { failure: { code: r.diagnostics[0].code, message: r.diagnostics[0].message } };
    }
    return { outputs: Object.fromEntries(r.outputs) };
  }
  const models = pkg.decisions;
  const model = models?.models.find((m) => m.uri.endsWith(request.source));
  if (!models || !model) return failed(`the package has no decision model '${request.source}'`);
  if (request.decision === undefined) {
    return failed(`'${request.source}' names no decision (write ${request.source}#<decision>)`);
  }
  const r = evaluateDecision(models, request.decision, inputs, { namespace: model.namespace });
  if (r.diagnostics) {
    return { failure: { code: r.diagnostics[0].code, message: r.diagnostics[0].message } };
  }
  return { outputs: Object.fromEntries(r.outputs) };
}
