/**
 * The checks a deployment passes before it becomes active, after the
 * package itself passed lint: none of them can be decided from the archive
 * alone, so each one asks the running engine.
 *
 * - **Channel collisions**: another active deployment (of another slot)
 *   already subscribes a process to a channel of the same name. The channel
 *   table routes by name, so the newcomer's subscriptions would never see a
 *   message. Two bindings that both declare `broadcast: true` may share.
 * - **Secrets**: every secret reference of the package's channels (`auth`,
 *   `options`) and stores (`*-ref`) is resolved once through the engine's
 *   resolvers; a reference that cannot be resolved would otherwise fail
 *   every call on the channel.
 * - **Stores**: the business stores open and run their migrations.
 *
 * Each refusal names what it concerns; nothing is activated when any fails.
 *
 * @module
 */
import type { Subscription } from "../../bpmn/mod.ts";
import {
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
} from "../../core/diagnostic.ts";
import { errorMessage } from "../../core/errors.ts";
import { isSecretReference, type ResolveContext, resolveReference } from "../../core/secrets.ts";
import { businessStores, openPackageStores } from "../../datastore/mod.ts";
import type { ChannelDecl, LoadedPackage } from "../../package/mod.ts";
import type { ActiveDeployment } from "./registry.ts";
import { refusalHint, refusalIn } from "../../core/permissions.ts";

/** One secret reference a package holds, and where. */
export interface SecretUse {
  /** `channel` or `store`. */
  readonly kind: "channel" | "store";
  /** The channel's or store's name. */
  readonly owner: string;
  /** Dotted path of the field inside the declaration (`auth.bearer.token`, `sql.password-ref`). */
  readonly option: string;
  /** The reference as written. */
  readonly reference: string;
}

/** Every secret reference of the package's channels and business stores. */
export function secretUses(pkg: LoadedPackage): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const c of pkg.channels.entries ?? []) {
    const add = (option: string, value: unknown) => {
      if (typeof value === "string" && isSecretReference(value)) {
        uses.push({ kind: "channel", owner: c.name, option, reference: value });
      }
    };
    const auth = c.auth;
    if (auth?.scheme === "apikey") add("auth.apikey.value", auth.apikey.value);
    if (auth?.scheme === "basic") {
      add("auth.basic.username", auth.basic.username);
      add("auth.basic.password", auth.basic.password);
    }
    if (auth?.scheme === "bearer") add("auth.bearer.token", auth.bearer.token);
    walk(c.options, "options", add);
  }
  for (const s of businessStores(pkg)) {
    const fields: [string, string | undefined][] = [
      ["sql.url-ref", s.sql.urlRef],
      ["sql.username-ref", s.sql.usernameRef],
      ["sql.password-ref", s.sql.passwordRef],
    ];
    for (const [option, value] of fields) {
      if (value !== undefined && isSecretReference(value)) {
        uses.push({ kind: "store", owner: s.name, option, reference: value });
      }
    }
  }
  return uses;
}

function walk(value: unknown, path: string, add: (path: string, value: unknown) => void): void {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, add));
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, add);
  } else add(path, value);
}

/**
 * Resolves every reference of the package (each distinct one once);
 * resolves to one `SUTRA.DEPLOY.SECRET_UNRESOLVED` per use that failed.
 */
export async function unresolvedSecrets(
  pkg: LoadedPackage,
  resolve: ResolveContext,
): Promise<Diagnostic[]> {
  const uses = secretUses(pkg);
  const outcomes = new Map<string, Promise<string | undefined>>();
  for (const { reference } of uses) {
    if (outcomes.has(reference)) continue;
    outcomes.set(
      reference,
      resolveReference(reference, resolve).then(() => undefined, (error) => whyUnresolved(error)),
    );
  }
  const out: Diagnostic[] = [];
  for (const use of uses) {
    const why = await outcomes.get(use.reference)!;
    if (why === undefined) continue;
    out.push(diagnostic(
      "SUTRA.DEPLOY.SECRET_UNRESOLVED",
      `${use.kind} '${use.owner}': ${use.option} references '${use.reference}', which cannot be resolved: ${why}`,
      {
        attributes: {
          [use.kind]: use.owner,
          option: use.option,
          reference: use.reference,
        },
      },
    ));
  }
  return out;
}

function whyUnresolved(error: unknown): string {
  return error instanceof DiagnosticError
    ? error.diagnostics.map((d) => d.message).join("; ")
    : errorMessage(error);
}

/**
 * Opens the package's business stores (running their migrations) and
 * closes them again; resolves to `SUTRA.DEPLOY.STORE_FAILED` per failure.
 * The dispatch side opens its own connections on the deployment's first step.
 *
 * An embedded store (`pglite:<dir>`) admits one opener at a time: when a
 * serving deployment declares the same `url-ref` (an earlier revision of
 * the slot, usually), that deployment may hold it open, so it is not
 * opened here; the new revision migrates it on its first step, as before.
 */
export async function storeFailures(
  pkg: LoadedPackage,
  resolve: ResolveContext,
  serving: readonly ActiveDeployment[] = [],
): Promise<Diagnostic[]> {
  const held = new Set(
    serving.flatMap((d) => businessStores(d.package).map((s) => s.sql.urlRef)),
  );
  const declared = [];
  for (const s of businessStores(pkg)) {
    const ref = s.sql.urlRef;
    if (ref !== undefined && held.has(ref) && isEmbeddedDir(await resolveReference(ref, resolve))) {
      continue;
    }
    declared.push(s);
  }
  if (declared.length === 0) return [];
  try {
    const set = await openPackageStores(pkg, resolve, declared);
    await set.close();
    return [];
  } catch (error) {
    const causes = error instanceof DiagnosticError
      ? error.diagnostics
      : [diagnostic("SUTRA.RUNTIME.UNEXPECTED", errorMessage(error))];
    return causes.map((cause) => {
      const store = cause.attributes?.store;
      const refusal = refusalIn(cause.message);
      return diagnostic(
        "SUTRA.DEPLOY.STORE_FAILED",
        `${typeof store === "string" ? `data store '${store}'` : "the data stores"} cannot be ` +
          `opened and migrated: ${refusal ? refusalHint(refusal) : formatDiagnostic(cause)}`,
        { attributes: { ...(typeof store === "string" ? { store } : {}), cause: cause.code } },
      );
    });
  }
}

function isEmbeddedDir(url: string): boolean {
  return url.startsWith("pglite:") && !url.startsWith("pglite:memory");
}

/** The channels a package's processes subscribe to, with their subscriptions. */
function subscribed(pkg: ActiveDeployment["plans"]): Map<string, Subscription[]> {
  const out = new Map<string, Subscription[]>();
  for (const plan of new Set(pkg.values())) {
    for (const [channel, subs] of plan.subscriptionsByChannel) {
      out.set(channel, [...(out.get(channel) ?? []), ...subs]);
    }
  }
  return out;
}

function typesOf(subs: readonly Subscription[]): string {
  const types = new Set(
    subs.map((s) =>
      s.messageTypeValue ?? (s.messageTypePattern ? `/${s.messageTypePattern.source}/` : "any")
    ),
  );
  return [...types].join(", ");
}

/** What {@link channelCollisions} compares. */
export interface Candidate {
  readonly deploymentId: string;
  readonly slot: string;
  readonly plans: ActiveDeployment["plans"];
  readonly package: LoadedPackage;
}

/**
 * One `SUTRA.DEPLOY.CHANNEL_COLLISION` per channel the candidate subscribes
 * to that an active deployment of another slot subscribes to as well
 * (the candidate's own slot is drained by the flip, so it never collides).
 */
export function channelCollisions(
  candidate: Candidate,
  active: readonly ActiveDeployment[],
): Diagnostic[] {
  const mine = subscribed(candidate.plans);
  const declOf = (pkg: LoadedPackage, name: string): ChannelDecl | undefined =>
    pkg.channels.entries?.find((c) => c.name === name);
  const out: Diagnostic[] = [];
  for (const other of active) {
    if (other.status !== "active" || other.slot === candidate.slot) continue;
    const theirs = subscribed(other.plans);
    for (const [channel, subs] of mine) {
      const taken = theirs.get(channel);
      if (!taken) continue;
      const shared = declOf(candidate.package, channel)?.broadcast === true &&
        declOf(other.package, channel)?.broadcast === true;
      if (shared) continue;
      out.push(diagnostic(
        "SUTRA.DEPLOY.CHANNEL_COLLISION",
        `channel '${channel}' (message types ${typesOf(subs)}) is already bound by active ` +
          `deployment ${other.deploymentId} in slot ${other.slot} (message types ${
            typesOf(taken)
          }); undeploy that slot first, or declare the channel broadcast: true in both packages`,
        {
          attributes: {
            channel,
            slot: candidate.slot,
            deploymentId: candidate.deploymentId,
            activeSlot: other.slot,
            activeDeploymentId: other.deploymentId,
          },
        },
      ));
    }
  }
  return out;
}
