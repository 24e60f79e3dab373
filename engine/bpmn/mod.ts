/**
 * engine/bpmn: the engine's view of a process. BPMN 2.0 XML with the q:
 * vocabulary (`urn:sutra:q:1.0`, `xsd/q.xsd`) is read into a typed model,
 * validated statically (every violation, each with a `SUTRA.CONFIG.BPMN.*`
 * code and a line) and compiled into an immutable execution plan.
 *
 * ```ts
 * import { loadBpmn } from "./mod.ts";
 * const result = await loadBpmn(await Deno.readFile("transfer.bpmn"), { uri: "transfer.bpmn" });
 * if (result.ok) console.log(result.plan.subscriptionsByChannel.get("transfer-request"));
 * else for (const d of result.diagnostics) console.error(d.code, d.source?.line, d.message);
 * ```
 *
 * `readBpmn` gives the model alone (no schema check, no validation), for
 * tools that must work on files that do not load yet.
 *
 * @module
 */
export { loadBpmn } from "./load.ts";
export { linkPlans } from "./link.ts";
export type { LoadOptions, LoadResult } from "./load.ts";
export { readBpmn } from "./reader.ts";
export type { ReadOptions, ReadResult } from "./reader.ts";
export { ModelIndex } from "./model_index.ts";
export type { ContainerEntry, FlowEntry, NodeEntry } from "./model_index.ts";
export * from "./model.ts";
export * from "./q_model.ts";
export type * from "./plan.ts";
export { NodeSet } from "./node_set.ts";
export type { PathMismatch, Shape, ShapeProvider } from "./shape.ts";
export { checkPath } from "./shape.ts";
export {
  isTimerExpression,
  parseTimer,
  parseTimerCycle,
  parseTimerDate,
  parseTimerDuration,
  timerFromValue,
} from "./timer.ts";
export type { TimerParse, TimerRefusal, TimerSpec } from "./timer.ts";
export {
  consumesMessages,
  implementationOf,
  parksInstance,
  throwsMessages,
} from "./implementation.ts";
export type { Implementation } from "./implementation.ts";
export { acceptsMessageType, channelRoutes } from "./routes.ts";
export type { ChannelRoute } from "./routes.ts";
export { Q_SCHEMA } from "./q_schema.ts";
