/**
 * A package is the unit of deployment: a call activity calls a process
 * defined in another BPMN file of the same package, by its plain id or by
 * an import-qualified QName, through the real seal, deploy and run path
 * (embedded PGlite); the called process parks and resumes across steps.
 */
import assert from "node:assert/strict";
import { get, post, withDeployed } from "./support.ts";

Deno.test("a call activity runs a process of another BPMN file of the package, by id and by QName", () =>
  withDeployed("tests/fixtures/runtime/call_across_files", {}, async (engine) => {
    const started = await post(engine, "/channels/caf-start", { ref: "R-1" });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const [instance] = started.body.instances as { instanceId: string; status: string }[];
    assert.equal(instance.status, "WAITING", JSON.stringify(started.body));

    const first = await post(engine, "/channels/caf-go", { ref: "R-1", n: 4 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.instances, [{
      instanceId: instance.instanceId,
      status: "WAITING",
    }]);

    const second = await post(engine, "/channels/caf-go", { ref: "R-1", n: 5 });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(second.body.instances, [{
      instanceId: instance.instanceId,
      status: "COMPLETED",
    }]);
    const inspected = await get(engine, `/admin/instances/${instance.instanceId}`);
    const variables = inspected.body.variables as Record<string, string>;
    assert.equal(variables.doubled, "8", JSON.stringify(variables));
    assert.equal(variables.viaQName, "10", JSON.stringify(variables));
  }));
