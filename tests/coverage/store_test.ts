import assert from "node:assert/strict";
import { completedRoutes, reconcile } from "../../engine/runtime/coverage/mod.ts";
import type { CrossRoute } from "../../engine/runtime/coverage/mod.ts";
import { eachCoverageTarget, freshDeploymentId, openCoverageStore } from "./_support.ts";

const E2E: CrossRoute = {
  id: "urn:sutra:coverage:e2e:accepted",
  keys: ["caseId"],
  segments: new Map([["intake", ["F1"]], ["hub", ["F2"]], ["fulfil", ["F3"]]]),
};

eachCoverageTarget(
  "coverage store: tables are created idempotently and routes seed once",
  async (url) => {
    const id = freshDeploymentId();
    const first = await openCoverageStore(url);
    try {
      assert.equal(await first.seed(id, ["accept", "reject", "accept"]), 2);
    } finally {
      await first.close();
    }
    // Opening again re-applies the DDL harmlessly and keeps the seeded rows.
    const second = await openCoverageStore(url);
    try {
      assert.equal(await second.seed(id, ["accept", "reject"]), 0);
      assert.deepEqual(await second.counts(id), {
        total: 2,
        covered: 0,
        uncovered: ["accept", "reject"],
      });
    } finally {
      await second.close();
    }
  },
  { reopenable: true },
);

eachCoverageTarget(
  "coverage store: the first traversal wins, later marks change nothing",
  async (url) => {
    const store = await openCoverageStore(url);
    try {
      const id = freshDeploymentId();
      await store.seed(id, ["accept", "reject"]);
      assert.deepEqual(await store.write(id, { marks: ["accept"] }), ["accept"]);
      assert.deepEqual(await store.write(id, { marks: ["accept"] }), []);
      // A route that was never seeded is not invented by a mark.
      assert.deepEqual(await store.write(id, { marks: ["undeclared"] }), []);
      assert.deepEqual(await store.counts(id), { total: 2, covered: 1, uncovered: ["reject"] });
      // Another deployment's flags are untouched.
      const other = freshDeploymentId();
      await store.seed(other, ["accept"]);
      assert.deepEqual((await store.counts(other)).uncovered, ["accept"]);
    } finally {
      await store.close();
    }
  },
);

eachCoverageTarget(
  "coverage store: concurrent traversals of one path mark it once",
  async (url) => {
    const store = await openCoverageStore(url);
    try {
      const id = freshDeploymentId();
      await store.seed(id, ["accept"]);
      const results = await Promise.all(
        Array.from({ length: 12 }, () => store.write(id, { marks: ["accept"] })),
      );
      assert.equal(results.flat().length, 1);
      assert.equal((await store.counts(id)).covered, 1);
    } finally {
      await store.close();
    }
  },
  { driverTimers: true },
);

eachCoverageTarget(
  "coverage store: reset clears flags and fragments, keeps the rows",
  async (url) => {
    const store = await openCoverageStore(url);
    try {
      const id = freshDeploymentId();
      await store.seed(id, ["accept", "reject", E2E.id]);
      await store.write(id, {
        marks: ["accept"],
        fragments: [{ routeId: E2E.id, processId: "intake", instanceId: "i1", correlations: [] }],
      });
      assert.deepEqual(await store.reset(id), { total: 3, cleared: 1 });
      assert.deepEqual(await store.fragments(id), []);
      assert.deepEqual(await store.counts(id), {
        total: 3,
        covered: 0,
        uncovered: ["accept", "reject", E2E.id].sort(),
      });
    } finally {
      await store.close();
    }
  },
);

eachCoverageTarget(
  "coverage store: a cross-process route covers only when one transaction walked it all",
  async (url) => {
    const store = await openCoverageStore(url);
    try {
      const id = freshDeploymentId();
      await store.seed(id, [E2E.id]);
      const fragment = (processId: string, instanceId: string, caseId: string) => ({
        routeId: E2E.id,
        processId,
        instanceId,
        correlations: [`caseId=${caseId}`],
      });
      // Case A walks intake and hub, case B only fulfilment: every process is
      // seen, but no single business transaction walked all three.
      await store.write(id, {
        fragments: [fragment("intake", "a1", "A"), fragment("hub", "a2", "A")],
      });
      await store.write(id, { fragments: [fragment("fulfil", "b3", "B")] });
      assert.deepEqual(await reconcile(store, id, [E2E]), []);
      assert.equal((await store.counts(id)).covered, 0);
      // Case A's fulfilment completes the walk.
      await store.write(id, { fragments: [fragment("fulfil", "a3", "A")] });
      assert.deepEqual(await reconcile(store, id, [E2E]), [E2E.id]);
      assert.deepEqual(await reconcile(store, id, [E2E]), []);
      assert.equal((await store.counts(id)).covered, 1);
    } finally {
      await store.close();
    }
  },
);

Deno.test("reconstruction joins instances transitively over different correlation keys", () => {
  const route: CrossRoute = { ...E2E, keys: ["caseId", "orderId"] };
  const f = (processId: string, instanceId: string, correlation: string) => ({
    routeId: route.id,
    processId,
    instanceId,
    correlation,
  });
  // intake—hub share the case id, hub—fulfil share the order id.
  const joined = [
    f("intake", "i1", "caseId=7"),
    f("hub", "i2", "caseId=7"),
    f("hub", "i2", "orderId=9"),
    f("fulfil", "i3", "orderId=9"),
  ];
  assert.deepEqual(completedRoutes([route], joined), [route.id]);
  // Without the hub's second value the chain breaks.
  assert.deepEqual(
    completedRoutes(
      [route],
      joined.filter((x) => x.correlation !== "orderId=9" || x.instanceId !== "i2"),
    ),
    [],
  );
  // Instances without a correlation never join anything.
  assert.deepEqual(
    completedRoutes([route], [f("intake", "i1", ""), f("hub", "i2", ""), f("fulfil", "i3", "")]),
    [],
  );
});
