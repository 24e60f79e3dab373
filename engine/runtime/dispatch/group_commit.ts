/**
 * Group commit: step commits that arrive while another is being written
 * share the next transaction, so a burst of N concurrent steps costs one
 * commit (one log flush) instead of N. Every caller still resolves only
 * after its own writes are durable, exactly as with its own transaction.
 *
 * A group is all or nothing in the database, but not for its members: when
 * the shared transaction fails (one member's alias clash, lost claim, full
 * channel …), each member is run again alone, so the others commit and the
 * failing one sees its own error. A member's work must therefore be
 * re-runnable: statements only, no effect outside its transaction. The one
 * failure that is not re-run is a commit in doubt (the connection broke
 * during COMMIT and nobody could say whether it took): every member gets it.
 *
 * @module
 */
import { CommitInDoubtError, type Database, type Transaction } from "../../persistence/mod.ts";
import { inOrder } from "../instances/repository.ts";

/** One commit's writes. */
export type CommitWork = (tx: Transaction) => Promise<unknown>;

interface Member {
  readonly work: CommitWork;
  resolve(): void;
  reject(error: unknown): void;
}

/** Most members one shared transaction takes. */
const MAX_GROUP = 64;

/** Batches concurrent commits on one database into shared transactions. */
export class GroupCommit {
  readonly #db: Database;
  #waiting: Member[] = [];
  #writing = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Commits `work`; resolves once it is durable, rejects with its own failure. */
  commit(work: CommitWork): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ work, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
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
      await this.#db.transaction((tx) => inOrder(group.map((m) => m.work(tx))));
    } catch (error) {
      // Running them again could apply a commit that did happen a second time.
      if (error instanceof CommitInDoubtError) {
        for (const m of group) m.reject(error);
        return;
      }
      await Promise.all(group.map((m) => this.#alone(m)));
      return;
    }
    for (const m of group) m.resolve();
  }

  async #alone(member: Member): Promise<void> {
    try {
      await this.#db.transaction(member.work);
      member.resolve();
    } catch (error) {
      member.reject(error);
    }
  }
}

const groups = new WeakMap<Database, GroupCommit>();

/** The group committer of `db` (one per database handle). */
export function groupCommitOf(db: Database): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = new GroupCommit(db);
    groups.set(db, group);
  }
  return group;
}
