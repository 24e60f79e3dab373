/**
 * Every task of an executable process must say what it does in a way the
 * engine can run: a service task's implementation is registered:, channel:,
 * a template or absent (a data task); a business-rule task names a
 * decision or ruleset; a script task has a script.
 *
 * @module
 */
import { implementationOf } from "../implementation.ts";
import type { RuleContext } from "./context.ts";

/** Checks every task's implementation. */
export function checkImplementations(ctx: RuleContext): void {
  for (const { node, container } of ctx.index.nodes.values()) {
    if (!ctx.executable(container.process)) continue;
    const implementation = implementationOf(node);
    if (implementation?.kind === "unsupported") {
      ctx.report(
        "SUTRA.CONFIG.BPMN.IMPLEMENTATION_UNSUPPORTED",
        `${node.kind} '${node.id}': implementation '${implementation.value}' cannot run here; ${implementation.hint}`,
        node,
        { attributes: { node: node.id, implementation: implementation.value } },
      );
    }
    if (node.kind === "scriptTask" && node.script === undefined) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.SCRIPT_MISSING",
        `script task '${node.id}' has no <script>`,
        node,
        { attributes: { node: node.id } },
      );
    }
  }
}
