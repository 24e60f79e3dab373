/**
 * Group commit: step commits that arrive while another is being written
 * share the next transaction, so a burst of N concurrent steps costs one
 * commit (one log flush) instead of N, and their rows go out as one
 * statement per kind of write (`commitSteps`) rather than a few per step.
 * The inbox is written the same way: on-persist captures stored together
 * (one insert for the group), the captures the steps consumed marked done
 * together, their dedup keys recorded together. Every caller still
 * resolves only after its own writes are durable, exactly as with its own
 * transaction.
 *
 * A group is all or nothing in the database, but not for its members: when
 * the shared transaction fails (one member's alias clash, lost claim, full
 * channel …), each member is run again alone, so the others commit and the
 * failing one sees its own error. A member's work must therefore be
 * re-runnable: statements only, no effect outside its transaction. The one
 * failure that is not re-run is a commit in doubt (the connection broke
 * during COMMIT and nobody could say whether it took): every member gets it.
 *
 * Captures and steps are grouped on two lines of their own, each writing
 * one transaction at a time on its own connection, so a group of captures
 * is written while a group of steps is in flight and the reverse. Together
 * they would wait on each other: an on-persist message waits for its
 * capture's commit and then its step's, and with one line each of those
 * would first wait for the other kind's group ahead of it. Nothing orders
 * the two: a step consumes only captures already durable (its run starts
 * after its capture's commit), and their rows never share a key (captures
 * are keyed `@…` or by a fresh id, dedup records by process and key). A
 * broker's copy of a message whose step is committing locks that message's
 * row in both; a deadlock between two such groups fails them, and their
 * members are run again alone like any failed group's.
 *
 * @module
 */
import { perDatabase } from "./per_database.ts";
import { CommitInDoubtError, type Database, type Transaction } from "../../persistence/mod.ts";
import { commitSteps, inOrder, type StepCommit } from "../instances/repository.ts";
import { type Capture, type CapturedMark, markCaptured, storeCaptures } from "./inbox.ts";
import { type DeliveryRecord, recordDeliveries } from "./dedup.ts";
import { enforcesRowSecurity, scopeToTenant } from "../tenancy/row_security.ts";
import { outboxBellOf } from "../outbox/bell.ts";

/** Statements of one commit. */
export type CommitWork = (tx: Transaction) => Promise<unknown>;

/** One commit's writes: a step's results, and statements of its own. */
export interface Commit {
  /** Written together with the other members' steps. */
  readonly step?: StepCommit;
  /** The capture the step consumed, marked done with the other members' (see `inbox.ts`). */
  readonly captured?: CapturedMark;
  /** The step's dedup key, recorded with the other members' (see `dedup.ts`). */
  readonly delivered?: DeliveryRecord;
  readonly work?: CommitWork;
}

interface Member extends Commit {
  /** An on-persist message to store; `stored` says, after the write, whether it was. */
  readonly capture?: Capture;
  stored?: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/** Most members one shared transaction takes. */
const MAX_GROUP = 64;

/** Batches concurrent commits on one database into shared transactions. */
export class GroupCommit {
  readonly #steps: Line;
  readonly #captures: Line;

  constructor(db: Database) {
    this.#steps = new Line(db);
    this.#captures = new Line(db);
  }

  /** Commits `commit`; resolves once it is durable, rejects with its own failure. */
  commit(commit: Commit): Promise<void> {
    return new Promise((resolve, reject) => this.#steps.join({ ...commit, resolve, reject }));
  }

  /**
   * Stores an on-persist message (`storeCaptures`); resolves once it is
   * durable, to whether it was stored (false: a copy was captured before).
   */
  capture(capture: Capture): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const member: Member = { capture, resolve: () => resolve(member.stored!), reject };
      this.#captures.join(member);
    });
  }
}

/** Members waiting for a transaction, written one group at a time. */
class Line {
  readonly #db: Database;
  #waiting: Member[] = [];
  #writing = false;

  constructor(db: Database) {
    this.#db = db;
  }

  join(member: Member): void {
    this.#waiting.push(member);
    if (!this.#writing) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, MAX_GROUP);
        if (group.length === 1) await this.#alone(group[0]);
        else await this.#together(group);
      }
    } finally {
      this.#writing = false;
    }
  }

  async #together(group: readonly Member[]): Promise<void> {
    try {
      // The members' statements are pipelined on the one connection; waiting
      // for all of them leaves none running when a failure rolls back.
      await this.#db.transaction((tx) => write(tx, group, enforcesRowSecurity(this.#db)));
    } catch (error) {
      // Running them again could apply a commit that did happen a second time.
      if (error instanceof CommitInDoubtError) {
        for (const m of group) m.reject(error);
        return;
      }
      await Promise.all(group.map((m) => this.#alone(m)));
      return;
    }
    ringForOutbox(this.#db, group);
    for (const m of group) m.resolve();
  }

  async #alone(member: Member): Promise<void> {
    try {
      await this.#db.transaction((tx) => write(tx, [member], enforcesRowSecurity(this.#db)));
      ringForOutbox(this.#db, [member]);
      member.resolve();
    } catch (error) {
      member.reject(error);
    }
  }
}

/**
 * The members' writes. Under row-level security (`narrow`), the statements
 * that span the group's tenants (captures, marks, dedup records, work) run
 * first in the session's every-tenant scope, and then each tenant's steps in
 * a scope narrowed to that tenant, so no step statement can reach another
 * tenant's rows: one more round trip per tenant in the group.
 */
async function write(tx: Transaction, members: readonly Member[], narrow: boolean): Promise<void> {
  const steps = members.flatMap((m) => m.step ? [m.step] : []);
  // The dedup records go before the steps: a twin delivery that lost the race also meets the
  // winner's unique aliases, and the first failure in issue order is the one reported, so the
  // loser learns it was a duplicate rather than an alias conflict.
  const capturing = members.filter((m) => m.capture);
  const spanning = () => [
    ...(capturing.length > 0 ? [storeAll(tx, capturing)] : []),
    markCaptured(tx, members.flatMap((m) => m.captured ? [m.captured] : [])),
    recordDeliveries(tx, members.flatMap((m) => m.delivered ? [m.delivered] : [])),
    ...members.flatMap((m) => m.work ? [m.work(tx)] : []),
  ];
  if (!narrow) {
    return await inOrder([...spanning(), ...(steps.length > 0 ? [commitSteps(tx, steps)] : [])]);
  }
  await inOrder(spanning());
  for (const [tenant, own] of Map.groupBy(steps, (s) => s.tenant)) {
    await inOrder([scopeToTenant(tx, tenant), commitSteps(tx, own)]);
  }
}

/** Wakes the outbox worker when committed members wrote outbox rows. */
function ringForOutbox(db: Database, members: readonly Member[]): void {
  if (members.some((m) => (m.step?.outbox.length ?? 0) > 0)) outboxBellOf(db).ring();
}

/** Stores the members' captures in one statement and tells each whether its was stored. */
async function storeAll(tx: Transaction, capturing: readonly Member[]): Promise<void> {
  const stored = await storeCaptures(tx, capturing.map((m) => m.capture!));
  for (const m of capturing) m.stored = stored.has(m.capture!);
}

/** The group committer of `db` (one per database handle). */
export const groupCommitOf: (db: Database) => GroupCommit = perDatabase((db) =>
  new GroupCommit(db)
);
