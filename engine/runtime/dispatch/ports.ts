/**
 * The executor's ports for a deployment: the engine clock, the package's
 * own templates (`templates/`), its decisions and rulesets (`rules/`:
 * `.dmn` models and `.srl` files), its data stores (`datastores.yaml`) and
 * the engine's registered tasks (the coverage ops, `registered:coverage:…`).
 *
 * The stateless ports are built once per deployment. Data stores are
 * opened once per deployment too, on first use, by {@link DeploymentStores};
 * every step gets a fresh {@link StepStores} over them (its reads' row locks
 * and its writes form one unit of work), which the commit finishes and
 * {@link StepPorts.release} rolls back when the step is abandoned. Every
 * store operation of a step runs off its execution lane ({@link offLane}):
 * a step waiting on a row lock leaves the lane to other instances.
 *
 * @module
 */
import { evaluateDecision } from "../../../lang/dmn/mod.ts";
import { FeelContext } from "../../../lang/feel/mod.ts";
import { evaluate as evaluateRuleset } from "../../../lang/srl/mod.ts";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { ResolveContext } from "../../core/secrets.ts";
import {
  businessStores,
  type DataStoreSet,
  openPackageStores,
  StepStores,
} from "../../datastore/mod.ts";
import type { DecisionOutcome, DecisionRequest, Ports } from "../../executor/mod.ts";
import type { LoadedPackage } from "../../package/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { coverageTasks } from "../coverage/mod.ts";
import { errorMessage } from "../../core/errors.ts";
import { offLane } from "./lanes.ts";

const cache = new WeakMap<ActiveDeployment, Ports>();

/**
 * The store-less ports steps of `deployment`'s instances run with. A step
 * run with these cannot read a data store, and its commit refuses any
 * store write (see {@link stepPorts} for the ports with stores).
 */
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
      // The engine's own registered tasks: the coverage ops a package's admin channels call.
      tasks: coverageTasks(deployment),
    };
    cache.set(deployment, ports);
  }
  return ports;
}

/** The ports of one step and the data-store work they carry. */
export interface StepPorts {
  /** What the executor runs the step with. */
  readonly ports: Ports;
  /**
   * The step's unit of work on the deployment's stores, for the commit;
   * absent when the deployment declares no business store.
   */
  readonly stores?: StepStores;
  /**
   * Rolls back the step's store work (releasing its row locks) unless the
   * commit already finished it. Call it on every way out of the step.
   */
  release(): Promise<void>;
}

/**
 * The ports for one step of `deployment`'s instances, with a fresh unit of
 * work on its data stores when `stores` is given and the deployment
 * declares any.
 */
export function stepPorts(
  deployment: ActiveDeployment,
  clock: Clock,
  stores?: DeploymentStores,
): StepPorts {
  const base = portsFor(deployment, clock);
  const set = stores?.storesOf(deployment);
  if (set === undefined) return { ports: base, release: () => Promise.resolve() };
  const work = new StepStores(set, { io: offLane });
  return { ports: { ...base, store: work }, stores: work, release: () => work.rollback() };
}

/** What {@link DeploymentStores} needs. */
export interface DeploymentStoresOptions {
  /** The deployments served; stores of one that leaves it are closed. */
  readonly registry: DeploymentRegistry;
  /** Resolves the stores' `url-ref` / `username-ref` / `password-ref`. */
  readonly resolve: ResolveContext;
  readonly logger: Logger;
}

/**
 * One engine's open data stores, per deployment. Each deployment's
 * business stores (every declared store but the engine-owned `coverage`
 * one) are opened through the provider registry on first use, each on its
 * own connection, never the engine's database. A failed open is not
 * cached: the next step tries again. A deployment that leaves the
 * registry (retired) has its stores closed; {@link close} closes the rest.
 */
export class DeploymentStores {
  readonly #o: DeploymentStoresOptions;
  readonly #open = new Map<string, Promise<DataStoreSet>>();
  readonly #unsubscribe: () => void;

  /** @param options the registry it follows and how references resolve */
  constructor(options: DeploymentStoresOptions) {
    this.#o = options;
    this.#unsubscribe = options.registry.subscribe(() => void this.#closeRetired());
  }

  /** The deployment's open stores, or undefined when it declares no business store. */
  storesOf(deployment: ActiveDeployment): Promise<DataStoreSet> | undefined {
    const cached = this.#open.get(deployment.deploymentId);
    if (cached) return cached;
    const declared = businessStores(deployment.package);
    if (declared.length === 0) return undefined;
    const opening = openPackageStores(deployment.package, this.#o.resolve, declared);
    this.#open.set(deployment.deploymentId, opening);
    opening.catch((error) => {
      this.#open.delete(deployment.deploymentId);
      this.#o.logger.error("opening the deployment's data stores failed", {
        deploymentId: deployment.deploymentId,
        error: errorMessage(error),
      });
    });
    return opening;
  }

  /** The store sets opened so far that did open. */
  async openSets(): Promise<DataStoreSet[]> {
    const settled = await Promise.allSettled(this.#open.values());
    return settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
  }

  /** Stops following the registry and closes every open store. */
  async close(): Promise<void> {
    this.#unsubscribe();
    const all = [...this.#open.keys()];
    await Promise.all(all.map((id) => this.#closeOne(id)));
  }

  async #closeRetired(): Promise<void> {
    const live = new Set(this.#o.registry.list().map((d) => d.deploymentId));
    const retired = [...this.#open.keys()].filter((id) => !live.has(id));
    await Promise.all(retired.map((id) => this.#closeOne(id)));
  }

  async #closeOne(deploymentId: string): Promise<void> {
    const opening = this.#open.get(deploymentId);
    if (!opening) return;
    this.#open.delete(deploymentId);
    try {
      await (await opening).close();
    } catch (error) {
      // A store that never opened has nothing to close; a failed close is only worth a line.
      this.#o.logger.warn("closing a deployment's data stores failed", {
        deploymentId,
        error: errorMessage(error),
      });
    }
  }
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
