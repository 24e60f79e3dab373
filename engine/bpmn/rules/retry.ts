/**
 * Retry policies. `q:retry` belongs on service tasks. A modelled timeout
 * (a timer boundary with drawn flows) always wins over a policy, so the two
 * together are refused rather than loaded as a policy that can never fire;
 * and a channel call can only fail an attempt through its route-less
 * `q:timeout`, so a channel-call policy without one is refused too.
 *
 * @module
 */
import { implementationOf } from "../implementation.ts";
import { isEvent } from "../model.ts";
import type { RuleContext } from "./context.ts";

/** Checks every `q:retry` and `q:timeout`. */
export function checkRetries(ctx: RuleContext): void {
  for (const { node } of ctx.index.nodes.values()) {
    const retry = node.q.retries[0];
    if (!retry) continue;
    if (node.kind !== "serviceTask") {
      ctx.report(
        "SUTRA.CONFIG.BPMN.RETRY_NOT_APPLICABLE",
        `q:retry on ${node.kind} '${node.id}': retry policies apply to service tasks only`,
        retry,
        { attributes: { node: node.id, host: node.kind } },
      );
      continue;
    }
    const boundaries = "boundaries" in node ? node.boundaries : [];
    for (const id of boundaries) {
      const boundary = ctx.index.nodes.get(id)?.node;
      if (!boundary || !isEvent(boundary) || boundary.outgoing.length === 0) continue;
      if (!boundary.definitions.some((d) => d.type === "timer")) continue;
      ctx.report(
        "SUTRA.CONFIG.BPMN.RETRY_NOT_APPLICABLE",
        `q:retry on '${node.id}' can never fire: timer boundary '${boundary.id}' models the timeout ` +
          "with its own flows; drop the policy, or replace the boundary with a route-less q:timeout",
        retry,
        { attributes: { node: node.id, boundary: boundary.id } },
      );
    }
    if (implementationOf(node)?.kind === "channel-call" && node.q.timeouts.length === 0) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.RETRY_TIMEOUT_REQUIRED",
        `q:retry on channel call '${node.id}' needs a q:timeout: only a timeout (or a poisoned ` +
          "delivery) fails an attempt of a channel call",
        retry,
        { attributes: { node: node.id } },
      );
    }
    if (retry.maxDelayMillis !== undefined && retry.maxDelayMillis < retry.initialDelayMillis) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.RETRY_DELAY_INVALID",
        `q:retry on '${node.id}': maxDelay is shorter than initialDelay`,
        retry,
        { attributes: { node: node.id } },
      );
    }
  }
}
