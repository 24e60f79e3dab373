/**
 * Service task, by implementation:
 *
 * - `registered:<name>`: one call to the task port per attempt, with the
 *   visible variables and the data inputs. Outputs become the result
 *   (merged into the variables, or seen as `result` by output
 *   associations); a BPMN error is thrown to the boundaries; a failure or a
 *   thrown exception is a failed attempt, retried after a durable backoff
 *   when the task has `q:retry`, else the instance fails.
 * - `channel:<name>`: emits the request (data inputs as body, a fresh
 *   idempotency key per attempt) and waits for the correlated response,
 *   whose payload is the result. A route-less `q:timeout` arms a deadline:
 *   with `q:retry` a timeout is a failed attempt (the request is withdrawn
 *   and re-issued after the backoff; a response arriving meanwhile is
 *   refused as RETRY_PENDING), without it the timeout is a BPMN error
 *   `SUTRA.DISPATCH.CHANNEL_CALL.TIMEOUT` a boundary can catch.
 * - a template: renders through the template port; the body is the result
 *   and, with `q:reply`, the reply.
 * - no implementation: a data task, run through its data associations.
 *
 * @module
 */
import { FeelContext, type FeelValue, fromJs } from "../../../lang/feel/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { EmissionEffect } from "../effects.ts";
import type { Rendered, TaskOutcome } from "../ports.ts";
import type { Token } from "../state.ts";
import { visible } from "../variables.ts";
import { ExecutorCode } from "../_failure.ts";
import { assignInputs } from "./task.ts";
import { errorMessage } from "../../core/errors.ts";

/** Service tasks of every implementation. */
export const serviceTask: Behavior = {
  activate(x, token) {
    const impl = x.nodeOf(token).implementation;
    switch (impl?.kind) {
      case "registered":
        return runRegistered(x, token, impl.name);
      case "channel-call":
        return callChannel(x, token, impl.channel);
      case "template":
        return render(x, token, impl.template);
      case "unsupported":
        x.fail(token, ExecutorCode.TASK_FAILED, `implementation '${impl.value}' cannot run`);
        return;
      default:
        return assignInputs(x, token);
    }
  },
  trigger(x, token, wait, message) {
    const impl = x.nodeOf(token).implementation!;
    switch (wait.purpose) {
      case "retry":
        if (impl.kind === "registered") return runRegistered(x, token, impl.name);
        if (impl.kind === "channel-call") return callChannel(x, token, impl.channel);
        return;
      case "timeout":
        timedOut(x, token);
        return;
      default:
        x.resolveOwn(token);
        delete token.attempt;
        x.state.attempts.delete(x.nodeOf(token).id);
        x.complete(token, message === undefined ? null : fromJs(message.payload));
    }
  },
  fail(x, token, code, message) {
    withdraw(x, token);
    // A failure reported from outside (a poisoned request) ends the attempt
    // before its deadline: the deadline goes with it, so it cannot fire into
    // the backoff and spend a second budget slot. A re-drive arms a fresh one.
    for (const w of [...x.state.waits.values()]) {
      if (w.token === token.id && w.purpose === "timeout") x.resolve(w);
    }
    x.failAttempt(token, code, message);
  },
  terminate(x, token) {
    withdraw(x, token);
  },
};

function runRegistered(x: Execution, token: Token, name: string): void | Promise<void> {
  const port = x.ports.tasks;
  if (!port) {
    x.failAttempt(token, ExecutorCode.TASK_FAILED, `no task port to run '${name}'`);
    return;
  }
  const attempt = x.attempt(token);
  const inputs = x.inputs(token);
  const call = (values: Map<string, FeelValue>): void | Promise<void> => {
    let outcome: TaskOutcome | Promise<TaskOutcome>;
    try {
      outcome = port.run({
        name,
        instanceId: x.state.instanceId,
        node: x.nodeOf(token).id,
        attempt,
        variables: visible(x.state, x.scope(token.scope), values),
      });
    } catch (e) {
      x.failAttempt(token, ExecutorCode.TASK_FAILED, errorMessage(e));
      return;
    }
    if (outcome instanceof Promise) {
      return outcome.then(
        (o) => settle(x, token, o),
        (e) => x.failAttempt(token, ExecutorCode.TASK_FAILED, errorMessage(e)),
      );
    }
    settle(x, token, outcome);
  };
  return inputs instanceof Promise ? inputs.then(call) : call(inputs);
}

function settle(x: Execution, token: Token, outcome: TaskOutcome): void {
  if ("bpmnError" in outcome) {
    x.throwError(
      token,
      outcome.bpmnError.code,
      outcome.bpmnError.message ?? outcome.bpmnError.code,
    );
    return;
  }
  if ("failure" in outcome) {
    x.failAttempt(token, outcome.failure.code, outcome.failure.message ?? outcome.failure.code);
    return;
  }
  x.state.attempts.delete(x.nodeOf(token).id);
  const entries = new Map<string, FeelValue>();
  for (const [k, v] of Object.entries(outcome.outputs ?? {})) entries.set(k, fromJs(v));
  x.complete(token, new FeelContext(entries));
}

function callChannel(x: Execution, token: Token, channel: string): void | Promise<void> {
  const node = x.nodeOf(token);
  token.attempt = x.attempt(token);
  const body = x.body(token);
  const send = (value: FeelValue) => {
    const emission: EmissionEffect = {
      node: node.id,
      channel,
      headers: {},
      body: x.plain(value),
      idempotencyKey: x.idempotencyKey(token),
    };
    (x.effects.emissions ??= []).push(emission);
    // The response correlation outlives a retry: it is armed once.
    if (token.state === "ready") {
      x.arm(token, { kind: "message", purpose: "response", node: node.index, channel });
    }
    if (node.timeout) {
      x.arm(token, {
        kind: "timer",
        purpose: "timeout",
        node: node.index,
        due: x.now + node.timeout.durationMillis,
      });
    }
    x.park(token, "waiting");
  };
  return body instanceof Promise ? body.then(send) : send(body);
}

function timedOut(x: Execution, token: Token): void {
  const node = x.nodeOf(token);
  withdraw(x, token);
  const message = `no response to '${node.id}' within its q:timeout`;
  if (node.retry) {
    x.failAttempt(token, ExecutorCode.CALL_TIMEOUT, message);
    return;
  }
  x.resolveOwn(token);
  x.throwError(token, ExecutorCode.CALL_TIMEOUT, message);
}

// A superseded or abandoned request is withdrawn so a late answer cannot
// race its successor.
function withdraw(x: Execution, token: Token): void {
  if (token.attempt === undefined) return;
  (x.effects.withdrawals ??= []).push(x.idempotencyKey(token));
  delete token.attempt;
}

function render(x: Execution, token: Token, template: string): void | Promise<void> {
  const port = x.ports.templates;
  if (!port) {
    x.fail(token, ExecutorCode.TASK_FAILED, `no template port to render '${template}'`);
  }
  const inputs = x.inputs(token);
  const go = (values: Map<string, FeelValue>): void | Promise<void> => {
    let rendered: Rendered | Promise<Rendered>;
    try {
      rendered = port.render({
        template,
        variables: visible(x.state, x.scope(token.scope), values),
      });
    } catch (e) {
      x.fail(token, ExecutorCode.TASK_FAILED, `rendering '${template}' failed: ${errorMessage(e)}`);
    }
    const done = (r: Rendered) => x.complete(token, r.body, { rendered: r });
    return rendered instanceof Promise
      ? rendered.then(done, (e) => {
        x.fail(
          token,
          ExecutorCode.TASK_FAILED,
          `rendering '${template}' failed: ${errorMessage(e)}`,
        );
      })
      : done(rendered);
  };
  return inputs instanceof Promise ? inputs.then(go) : go(inputs);
}
