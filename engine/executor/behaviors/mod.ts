/**
 * The behaviour table: one module per element kind, looked up by the kind
 * the plan gives each node. An activity with loop characteristics is run
 * by its loop behaviour first, which runs the activity's own behaviour once
 * per iteration or instance.
 *
 * @module
 */
import type { FlowNodeKind, PlanNode } from "../../bpmn/mod.ts";
import type { Behavior } from "../behavior.ts";
import type { Token } from "../state.ts";
import { adHocSubProcess } from "./ad_hoc_sub_process.ts";
import { boundaryEvent } from "./boundary_event.ts";
import { businessRuleTask } from "./business_rule_task.ts";
import { callActivity } from "./call_activity.ts";
import { complexGateway } from "./complex_gateway.ts";
import { endEvent } from "./end_event.ts";
import { eventBasedGateway } from "./event_based_gateway.ts";
import { exclusiveGateway } from "./exclusive_gateway.ts";
import { inclusiveGateway } from "./inclusive_gateway.ts";
import { intermediateCatchEvent } from "./intermediate_catch_event.ts";
import { intermediateThrowEvent } from "./intermediate_throw_event.ts";
import { manualTask } from "./manual_task.ts";
import { multiInstance } from "./multi_instance.ts";
import { parallelGateway } from "./parallel_gateway.ts";
import { receiveTask } from "./receive_task.ts";
import { scriptTask } from "./script_task.ts";
import { sendTask } from "./send_task.ts";
import { serviceTask } from "./service_task.ts";
import { standardLoop } from "./standard_loop.ts";
import { startEvent } from "./start_event.ts";
import { subProcess } from "./sub_process.ts";
import { task } from "./task.ts";
import { transaction } from "./transaction.ts";
import { userTask } from "./user_task.ts";

const TABLE: Readonly<Record<FlowNodeKind, Behavior>> = {
  startEvent,
  endEvent,
  intermediateCatchEvent,
  intermediateThrowEvent,
  boundaryEvent,
  task,
  manualTask,
  serviceTask,
  sendTask,
  receiveTask,
  userTask,
  businessRuleTask,
  scriptTask,
  subProcess,
  transaction,
  adHocSubProcess,
  callActivity,
  exclusiveGateway,
  parallelGateway,
  inclusiveGateway,
  eventBasedGateway,
  complexGateway,
};

/** The behaviour that handles `token` at `node` (its loop first, unless the token is the loop's run). */
export function behaviorOf(node: PlanNode, token: Token | undefined): Behavior {
  if (node.loop && token !== undefined && !token.inner && token.handler === undefined) {
    return node.loop.type === "multiInstance" ? multiInstance : standardLoop;
  }
  return TABLE[node.kind];
}
