/**
 * Administrative cancellation: claim the instance like any resume (a held
 * claim answers 409, retry-safe), step it with a cancel input and commit.
 *
 * @module
 */
import { diagnostic } from "../../core/diagnostic.ts";
import { diagnosticResponse, jsonResponse } from "../http_router.ts";
import { advanceInstance, type AdvanceOptions } from "./advance.ts";

/** What a cancellation needs. */
export interface CancelOptions extends AdvanceOptions {
  /** Claim owner for administrative steps. */
  readonly owner: string;
}

/** Cancels one instance; answers the HTTP response for `POST /admin/instances/{id}/cancel`. */
export async function cancelInstance(o: CancelOptions, instanceId: string): Promise<Response> {
  const { rows } = await o.db.query<{ tenant: string }>(
    "select tenant from instances where instance_id = $1 order by tenant limit 1",
    [instanceId],
  );
  if (rows.length === 0) {
    return diagnosticResponse(404, [
      diagnostic("SUTRA.RUNTIME.INSTANCE.UNKNOWN", `no instance ${instanceId}`, {
        attributes: { instanceId },
      }),
    ]);
  }
  const key = { tenant: rows[0].tenant, instanceId, owner: o.owner };
  const advanced = await advanceInstance(o, key, () => ({ type: "cancel", reason: "admin" }));
  switch (advanced.kind) {
    case "committed":
      return advanced.outcome.kind === "refused"
        ? diagnosticResponse(409, advanced.outcome.diagnostics)
        : jsonResponse(200, { instanceId, status: advanced.state.status });
    case "refused-step":
      return diagnosticResponse(409, [advanced.refusal]);
    case "held":
      return diagnosticResponse(409, [
        diagnostic("SUTRA.RUNTIME.RESUME.CLAIM_HELD", `instance ${instanceId} is being advanced`, {
          attributes: { instanceId },
        }),
      ]);
    case "gone":
      return diagnosticResponse(409, [
        diagnostic(
          "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE",
          `instance ${instanceId} has already ended`,
          {
            attributes: { instanceId },
          },
        ),
      ]);
    case "unloaded":
    case "undecodable":
    case "left":
      return diagnosticResponse(409, [
        diagnostic(
          "SUTRA.RUNTIME.SNAPSHOT.INVALID",
          `instance ${instanceId} cannot be loaded from its deployment`,
          { attributes: { instanceId } },
        ),
      ]);
  }
}
