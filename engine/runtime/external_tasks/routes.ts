/**
 * The worker routes under `/sutra/external-tasks`: fetch-and-lock (a
 * bounded long poll), complete (re-take the lock, dispatch through the one
 * intake path under the task's idempotency key, then delete) and failure
 * (spend or set the budget). Operate-surface routes: a completion can do
 * nothing an inbound message on the same channel could not.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { Logger } from "../../core/log.ts";
import {
  type ChannelAuthSpec,
  type DeliveryOutcome,
  type InboundDelivery,
  refusedForNow,
} from "../../core/transport.ts";
import { retryAfterSeconds } from "../tenancy/quotas.ts";
import { authenticate, challenge } from "../channel_auth.ts";
import type { Database } from "../../persistence/mod.ts";
import type { DeploymentRegistry } from "../deployments/registry.ts";
import { channelDestination } from "../dispatch/encode.ts";
import {
  diagnosticResponse,
  jsonResponse,
  readCappedBody,
  type Router,
  withheld,
} from "../http_router.ts";
import type { Doorbell } from "./doorbell.ts";
import {
  checkComplete,
  type Checked,
  checkFailure,
  checkFetch,
  type CompleteRequest,
  type FailureRequest,
  type FetchRequest,
} from "./requests.ts";
import type { ExternalTaskSettings } from "./settings.ts";
import {
  claimTasks,
  deleteTask,
  failTask,
  type HeldTask,
  holdLock,
  type LockedTask,
  type LockState,
  probeTask,
  releaseLock,
  type TaskAddress,
} from "./store.ts";

// A waiting fetch re-runs its claim this often even without a ring: a lock
// that expires or a backoff that elapses rings nothing, and neither does a
// notification lost with a database connection.
const REPOLL_MS = 1_000;

// Room around a completion's result for the rest of its JSON envelope.
const ENVELOPE_BYTES = 65_536;

/** What the routes need. */
export interface ExternalTaskRoutesOptions {
  readonly db: Database;
  readonly registry: DeploymentRegistry;
  /** The engine's one intake path. */
  readonly deliver: (delivery: InboundDelivery) => Promise<DeliveryOutcome>;
  readonly settings: ExternalTaskSettings;
  readonly doorbell: Doorbell;
  readonly logger: Logger;
  /** `sutra.inbound.payload-cap-bytes`: a completion's result may be this large. */
  readonly payloadCapBytes: number;
  /** Aborted when the engine stops, so waiting fetches answer at once. */
  readonly stopping: AbortSignal;
  /** Resolves a secret reference in a pull channel's `auth`. */
  readonly resolveSecret: (reference: string) => Promise<string>;
}

/** Mounts the three worker routes. */
export function addExternalTaskRoutes(router: Router, o: ExternalTaskRoutesOptions): void {
  const small = ENVELOPE_BYTES;
  router.add(
    "POST",
    "/sutra/external-tasks/fetch-and-lock",
    (request) =>
      withBody(request, small, async (body) => {
        const checked = checkFetch(body, o.settings);
        return "diagnostics" in checked
          ? diagnosticResponse(400, checked.diagnostics)
          : await fetchAndLock(o, checked.ok, request.headers);
      }),
  );
  router.add(
    "POST",
    "/sutra/external-tasks/{id}/complete",
    async (request, params) =>
      await refuseStranger(o, params.id, request.headers) ??
        await withBody(
          request,
          o.payloadCapBytes + ENVELOPE_BYTES,
          (body) => orRefuse(checkComplete(body), (r) => complete(o, params.id, r)),
        ),
  );
  router.add(
    "POST",
    "/sutra/external-tasks/{id}/failure",
    async (request, params) =>
      await refuseStranger(o, params.id, request.headers) ??
        await withBody(
          request,
          small,
          (body) => orRefuse(checkFailure(body, o.settings), (r) => fail(o, params.id, r)),
        ),
  );
}

function unauthorized(d: Diagnostic, auth: ChannelAuthSpec | undefined): Response {
  const h = new Headers({ "www-authenticate": challenge(auth) });
  h.set("content-type", "application/json");
  return new Response(JSON.stringify({ diagnostics: [d] }), { status: 401, headers: h });
}

/**
 * A refusal when the caller does not hold the credentials of the task's
 * pull channel (before anything is read or locked); undefined when it does,
 * or when there is no such task (the route answers that itself). A task
 * whose deployment is not loaded has no credentials to check against and is
 * refused: fail closed.
 */
async function refuseStranger(
  o: ExternalTaskRoutesOptions,
  taskId: string,
  headers: Headers,
): Promise<Response | undefined> {
  const { rows } = await o.db.query<{ deployment_id: string; destination: string }>(
    "select deployment_id, destination from external_tasks where task_id = $1",
    [taskId],
  );
  if (rows.length === 0) return undefined;
  const address = { deploymentId: rows[0].deployment_id, destination: rows[0].destination };
  const declaration = declarationOf(o.registry, address);
  if (!declaration) {
    return diagnosticResponse(404, [diagnostic(
      "SUTRA.RESOLVE.CHANNEL.UNKNOWN",
      `deployment ${address.deploymentId} of task ${taskId} is not loaded`,
      { attributes: { deploymentId: address.deploymentId, taskId } },
    )]);
  }
  const denied = await authenticate(declaration.auth, headers, o);
  return denied && unauthorized(
    { ...denied, attributes: { ...denied.attributes, channel: declaration.name, taskId } },
    declaration.auth,
  );
}

function orRefuse<T>(checked: Checked<T>, run: (ok: T) => Promise<Response>): Promise<Response> {
  return "diagnostics" in checked
    ? Promise.resolve(diagnosticResponse(400, checked.diagnostics))
    : run(checked.ok);
}

/** Reads a JSON body of at most `capBytes`; 413 over the cap, 400 when it is not JSON. */
async function withBody(
  request: Request,
  capBytes: number,
  handle: (body: unknown) => Promise<Response>,
): Promise<Response> {
  const bytes = await readCappedBody(request, capBytes);
  if (!bytes) {
    return diagnosticResponse(413, [
      diagnostic("SUTRA.INBOUND.PAYLOAD_TOO_LARGE", `the request body is over ${capBytes} bytes`, {
        attributes: { capBytes },
      }),
    ]);
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return diagnosticResponse(400, [
      diagnostic("SUTRA.EXTERNAL_TASK.REQUEST_INVALID", "the request body is not valid JSON"),
    ]);
  }
  return await handle(body);
}

/** A channel name resolved in the live deployment set. */
interface NamedAddress extends TaskAddress {
  readonly name: string;
  readonly auth?: ChannelAuthSpec;
}

/** Where tasks of these channel names may live: every live deployment declaring one. */
function addressesOf(registry: DeploymentRegistry, names: ReadonlySet<string>): NamedAddress[] {
  return registry.list().flatMap((d) =>
    (d.package.channels.entries ?? [])
      .filter((c) => names.has(c.name))
      .map((c) => ({
        deploymentId: d.deploymentId,
        destination: channelDestination(c),
        name: c.name,
        ...(c.auth ? { auth: c.auth } : {}),
      }))
  );
}

/** The channel declaration of a task's address, if its deployment is still live. */
function declarationOf(registry: DeploymentRegistry, a: TaskAddress) {
  return registry.get(a.deploymentId)?.package.channels.entries
    ?.find((c) => channelDestination(c) === a.destination);
}

/** The channel name of a task's address, if its deployment is still live. */
function channelOf(registry: DeploymentRegistry, a: TaskAddress): string | undefined {
  return declarationOf(registry, a)?.name;
}

/**
 * The addresses whose channel declaration accepts the request's credentials,
 * or the refusal of the first named channel none of whose declarations does.
 */
async function openAddresses(
  o: ExternalTaskRoutesOptions,
  addresses: readonly NamedAddress[],
  headers: Headers,
): Promise<NamedAddress[] | Response> {
  const open: NamedAddress[] = [];
  const refused = new Map<string, { d: Diagnostic; auth?: ChannelAuthSpec }>();
  for (const a of addresses) {
    const denied = await authenticate(a.auth, headers, o);
    if (denied) refused.set(a.name, { d: denied, ...(a.auth ? { auth: a.auth } : {}) });
    else open.push(a);
  }
  for (const [name, { d, auth }] of refused) {
    if (open.some((a) => a.name === name)) continue;
    return unauthorized({ ...d, attributes: { ...d.attributes, channel: name } }, auth);
  }
  return open;
}

async function fetchAndLock(
  o: ExternalTaskRoutesOptions,
  r: FetchRequest,
  headers: Headers,
): Promise<Response> {
  const names = new Set(r.channels);
  const first = await openAddresses(o, addressesOf(o.registry, names), headers);
  if (first instanceof Response) return first;
  // Subscribed before the first query, so a park during it still wakes the wait.
  const subscription = o.doorbell.subscribe(first.map((a) => a.destination));
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), r.waitMs);
  const over = AbortSignal.any([deadline.signal, o.stopping]);
  try {
    for (;;) {
      // Looked up again on every round: a deploy during the poll adds or drops addresses.
      const open = await openAddresses(o, addressesOf(o.registry, names), headers);
      const addresses = open instanceof Response ? [] : open;
      const tasks = await claimTasks(o.db, {
        workerId: r.workerId,
        lockMs: r.lockMs,
        maxTasks: r.maxTasks,
        addresses,
        retries: o.settings.retries,
      });
      if (tasks.length > 0 || r.waitMs === 0 || over.aborted) {
        return jsonResponse(200, tasks.map((t) => taskJson(t, addresses)));
      }
      await subscription.wait(REPOLL_MS, over);
    }
  } finally {
    clearTimeout(timer);
    subscription.close();
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A task as the worker sees it; bytes that are not UTF-8 travel as base64. */
function taskJson(t: LockedTask, addresses: readonly NamedAddress[]) {
  const name = addresses.find((a) =>
    a.deploymentId === t.deploymentId && a.destination === t.destination
  )?.name;
  let text: string | undefined;
  try {
    text = strictUtf8.decode(t.body);
  } catch {
    text = undefined;
  }
  return {
    id: t.taskId,
    channel: name ?? null,
    instanceId: t.instanceId ?? null,
    headers: t.headers,
    ...(text === undefined ? { body: null, bodyBase64: t.body.toBase64() } : { body: text }),
    contentType: t.contentType ?? null,
    attempts: t.attempts,
    retriesLeft: t.retriesLeft,
    lockExpiresAt: t.lockExpiresAt.toISOString(),
  };
}

async function complete(
  o: ExternalTaskRoutesOptions,
  taskId: string,
  r: CompleteRequest,
): Promise<Response> {
  // The lock is re-taken for the dispatch, so it cannot lapse and hand the
  // task to a second worker while this result is inside the engine.
  const held = await holdLock(o.db, {
    taskId,
    workerId: r.workerId,
    lockMs: o.settings.defaultLockMs,
  });
  if (!held) return verdict(await probeTask(o.db, taskId), taskId, r.workerId);
  const channel = channelOf(o.registry, held);
  const outcome: DeliveryOutcome = channel === undefined
    ? {
      kind: "refused",
      refusal: "not-found",
      diagnostics: [diagnostic(
        "SUTRA.RESOLVE.CHANNEL.UNKNOWN",
        `deployment ${held.deploymentId} of task ${taskId} is not loaded`,
        { attributes: { deploymentId: held.deploymentId } },
      )],
    }
    : await o.deliver({
      channel,
      ...completionBody(held, r.result),
      headers: held.headers,
      idempotencyKey: held.idempotencyKey,
    });
  if (outcome.kind === "refused" && refusedForNow(outcome.refusal)) {
    // The instance is busy (another step holds it, or the lanes are full): the same completion
    // will do once it is free, so the worker keeps its lock instead of the task going round again.
    const cause = outcome.diagnostics[0]?.code ?? "SUTRA.RUNTIME.UNEXPECTED";
    const deferred = diagnosticResponse(503, [
      diagnostic(
        "SUTRA.EXTERNAL_TASK.COMPLETION_DEFERRED",
        `the engine could not take the completion of task ${taskId} yet (${cause}); send it ` +
          "again after Retry-After, the lock is kept",
        { attributes: { taskId, causeCode: cause, refusal: outcome.refusal } },
      ),
      ...outcome.diagnostics,
    ]);
    deferred.headers.set("retry-after", String(retryAfterSeconds(outcome.diagnostics[0]) ?? 1));
    return deferred;
  }
  if (outcome.kind === "refused") {
    await releaseLock(o.db, { taskId, workerId: r.workerId });
    const cause = outcome.diagnostics[0]?.code ?? "SUTRA.RUNTIME.UNEXPECTED";
    return diagnosticResponse(422, [
      diagnostic(
        "SUTRA.EXTERNAL_TASK.COMPLETION_REFUSED",
        `the engine refused the completion of task ${taskId} (${cause}); the task is fetchable again`,
        { attributes: { taskId, causeCode: cause, refusal: outcome.refusal } },
      ),
      // A failure inside the engine keeps its codes; its detail goes to the log only.
      ...(outcome.refusal === "failed"
        ? withheld(o.logger, outcome.diagnostics, { taskId })
        : outcome.diagnostics),
    ]);
  }
  // Deleted only after the engine accepted the result: a crash before this
  // line re-offers the task, and inbox dedup absorbs the second completion.
  await deleteTask(o.db, taskId);
  return jsonResponse(
    200,
    outcome.kind === "captured"
      ? { id: taskId, receiptId: outcome.receiptId }
      : { id: taskId, instances: outcome.instances },
  );
}

const utf8 = new TextEncoder();

/** The message a completion delivers: the worker's result, else the original request. */
function completionBody(
  task: HeldTask,
  result: { readonly value: unknown } | undefined,
): { body: Uint8Array; contentType?: string } {
  if (!result) {
    return { body: task.body, ...(task.contentType ? { contentType: task.contentType } : {}) };
  }
  const { value } = result;
  const json = /json/i.test(task.contentType ?? "application/json");
  if (typeof value === "string" && !json) {
    return { body: utf8.encode(value), contentType: task.contentType ?? "text/plain" };
  }
  return { body: utf8.encode(JSON.stringify(value)), contentType: "application/json" };
}

async function fail(
  o: ExternalTaskRoutesOptions,
  taskId: string,
  r: FailureRequest,
): Promise<Response> {
  const failed = await failTask(o.db, {
    taskId,
    workerId: r.workerId,
    errorMessage: r.errorMessage,
    ...(r.retries === undefined ? {} : { retries: r.retries }),
    retryTimeoutMs: r.retryTimeoutMs,
    defaultRetries: o.settings.retries,
  });
  if (!failed) return verdict(await probeTask(o.db, taskId), taskId, r.workerId);
  if (failed.terminal) {
    o.logger.warn(`external task ${taskId} spent its failure budget and is terminal`, {
      code: "SUTRA.EXTERNAL_TASK.RETRIES_EXHAUSTED",
      taskId,
      workerId: r.workerId,
      error: r.errorMessage,
    });
  }
  return jsonResponse(200, {
    id: taskId,
    retriesLeft: failed.retriesLeft,
    terminal: failed.terminal,
  });
}

/** Why an ownership-guarded mutation matched nothing; never a 200. */
function verdict(state: LockState | undefined, taskId: string, workerId: string): Response {
  const attributes = { taskId, workerId };
  const refuse = (status: number, code: string, message: string) =>
    diagnosticResponse(status, [diagnostic(code, message, { attributes })]);
  if (!state) return refuse(404, "SUTRA.EXTERNAL_TASK.UNKNOWN", `no external task ${taskId}`);
  if (state.terminal) {
    return refuse(
      409,
      "SUTRA.EXTERNAL_TASK.TERMINAL",
      `external task ${taskId} is terminal: its failure budget is spent`,
    );
  }
  // A worker whose lapsed lock was taken over hears that its lock expired.
  if (state.lockLive && state.lockOwner !== workerId && state.expiredOwner !== workerId) {
    return refuse(
      409,
      "SUTRA.EXTERNAL_TASK.LOCKED_BY_OTHER",
      `external task ${taskId} is locked by another worker`,
    );
  }
  return refuse(
    409,
    "SUTRA.EXTERNAL_TASK.LOCK_EXPIRED",
    `worker ${workerId} no longer holds the lock on external task ${taskId}`,
  );
}
