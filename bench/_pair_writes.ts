/**
 * The database side of approval park+resume pairs with nothing else: the
 * engine's own statements for a pair (the park's commit, the relay's claim,
 * the resume's commit), run straight from the load loops with no HTTP, no
 * execution and no lanes, and batched as well as the concurrency allows
 * (two writers, each committing half of the pairs in flight together and
 * claiming them in one statement).
 * What a pair costs the database and its driver this way bounds what any
 * engine keeping the same rows can reach at that concurrency. Not a
 * benchmark itself: `run_all.ts` skips `_`-prefixed files.
 *
 * @module
 */
import type { StepCommit } from "../engine/runtime/instances/repository.ts";
import type { LoadOptions } from "./_support.ts";
import { throughput } from "./_support.ts";

/** A parked approval's snapshot, about the size the engine writes for one. */
const SNAPSHOT = `gen=1\nstatus=WAITING\n${"var.request=s:".padEnd(400, "x")}\n`;

/** Pairs per second on the server `url`, in a new schema `schema`. */
export async function pairWritesFloor(
  url: string,
  options: LoadOptions & { readonly schema: string },
): Promise<number> {
  const { ENGINE_MIGRATIONS, migrate, openDatabase } = await import(
    "../engine/persistence/mod.ts"
  );
  const { claimInstances, commitSteps } = await import(
    "../engine/runtime/instances/repository.ts"
  );
  const { emptyState } = await import("../engine/executor/state.ts");
  const { NO_EFFECTS } = await import("../engine/executor/effects.ts");
  const writers = 2;
  const batch = Math.max(1, Math.floor(options.workers / writers));
  const db = await openDatabase(url, { schema: options.schema });
  const step = (id: string, o: Partial<StepCommit>): StepCommit => ({
    tenant: "demo",
    instanceId: id,
    deploymentId: "approval-hold@1",
    processId: "approval",
    state: emptyState(id, "approval"),
    snapshot: SNAPSHOT,
    effects: NO_EFFECTS,
    outbox: [],
    journal: false,
    ...o,
  });
  try {
    await migrate(db, ENGINE_MIGRATIONS);
    const perSecond = await throughput(
      { workers: writers, seconds: options.seconds },
      async (w, i) => {
        const ids = Array.from({ length: batch }, (_, k) => `pair-${w}-${i}-${k}`);
        await db.transaction((tx) =>
          commitSteps(
            tx,
            ids.map((id) =>
              step(id, {
                state: { ...emptyState(id, "approval"), status: "WAITING" },
                effects: {
                  ...NO_EFFECTS,
                  waitsArmed: [{
                    id: 1,
                    kind: "message",
                    purpose: "catch",
                    process: "approval",
                    node: "await-decision",
                    channel: "approval-decision",
                    messageType: "ApprovalDecision",
                  }],
                  aliasesRecorded: [{
                    name: "e2eId",
                    value: id,
                    unique: true,
                    onConflict: "reject",
                  }],
                },
              })
            ),
          )
        );
        const owner = `bench/lane-${w}`;
        // As the engine's lanes claim at one moment: one statement for the batch.
        const claimed = await claimInstances(
          db,
          "demo",
          ids.map((instanceId) => ({ key: { tenant: "demo", instanceId, owner } })),
        );
        if (claimed.includes(undefined)) throw new Error("a floor claim was not taken");
        await db.transaction((tx) =>
          commitSteps(
            tx,
            ids.map((id) =>
              step(id, {
                owner,
                state: { ...emptyState(id, "approval"), status: "COMPLETED" },
                effects: { ...NO_EFFECTS, waitsResolved: [1] },
              })
            ),
          )
        );
      },
    );
    return perSecond * batch;
  } finally {
    await db.close();
  }
}
