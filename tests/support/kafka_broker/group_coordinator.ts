/**
 * Consumer groups for the test broker, following Kafka's group protocol:
 * members join (answered together once every known member has rejoined,
 * or the rebalance timeout drops the stragglers), the leader's SyncGroup
 * hands out the assignments, heartbeats tell members a rebalance is under
 * way, and a member that leaves or stops heartbeating for its session
 * timeout triggers a new generation. Committed offsets are checked against
 * the member and generation the way the real coordinator checks them.
 *
 * @module
 */

/** Kafka error codes the coordinator answers. */
export const ILLEGAL_GENERATION = 22;
export const UNKNOWN_MEMBER_ID = 25;
export const REBALANCE_IN_PROGRESS = 27;

type State = "Empty" | "PreparingRebalance" | "CompletingRebalance" | "Stable";

/** A JoinGroup answer. */
export interface JoinResult {
  readonly error: number;
  readonly generation: number;
  readonly protocol: string;
  readonly leader: string;
  readonly memberId: string;
  readonly members: readonly { readonly id: string; readonly metadata: Uint8Array }[];
}

/** What a JoinGroup asks. */
export interface JoinRequest {
  readonly group: string;
  readonly memberId: string;
  readonly clientId: string;
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly protocols: readonly { readonly name: string; readonly metadata: Uint8Array }[];
}

interface Member {
  readonly id: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: JoinRequest["protocols"];
  lastSeen: number;
  assignment: Uint8Array;
  joining?: (result: JoinResult) => void;
  syncing?: (result: { error: number; assignment: Uint8Array }) => void;
}

class Group {
  state: State = "Empty";
  generation = 0;
  protocol = "";
  leader = "";
  readonly members = new Map<string, Member>();
  readonly offsets = new Map<string, { offset: bigint; metadata: string | null }>();
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Every group of the broker. */
export class GroupCoordinator {
  readonly #groups = new Map<string, Group>();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor() {
    // Members that stopped heartbeating are dropped on this sweep.
    this.#sweeper = setInterval(() => this.#expire(), 100);
  }

  /** Stops the session sweep and answers every waiting member with REBALANCE_IN_PROGRESS. */
  close(): void {
    clearInterval(this.#sweeper);
    for (const g of this.#groups.values()) {
      clearTimeout(g.timer);
      for (const m of g.members.values()) this.#interrupt(m);
    }
  }

  /** Drops every member (the broker's connections went away): they must join afresh. */
  forgetMembers(): void {
    for (const g of this.#groups.values()) {
      clearTimeout(g.timer);
      for (const m of g.members.values()) this.#interrupt(m);
      g.members.clear();
      g.state = "Empty";
      g.leader = "";
    }
  }

  #group(name: string): Group {
    let g = this.#groups.get(name);
    if (!g) this.#groups.set(name, g = new Group());
    return g;
  }

  /** JoinGroup: resolves when the group's next generation is formed. */
  join(req: JoinRequest): Promise<JoinResult> {
    const g = this.#group(req.group);
    let member = req.memberId === "" ? undefined : g.members.get(req.memberId);
    if (req.memberId !== "" && !member) return Promise.resolve(failedJoin(UNKNOWN_MEMBER_ID));
    if (!member) {
      member = {
        id: `${req.clientId}-${crypto.randomUUID()}`,
        sessionTimeoutMs: req.sessionTimeoutMs,
        rebalanceTimeoutMs: req.rebalanceTimeoutMs,
        protocols: req.protocols,
        lastSeen: Date.now(),
        assignment: new Uint8Array(),
      };
      g.members.set(member.id, member);
    }
    const m = member;
    m.protocols = req.protocols;
    m.sessionTimeoutMs = req.sessionTimeoutMs;
    m.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    m.lastSeen = Date.now();
    return new Promise((resolve) => {
      m.joining?.(failedJoin(REBALANCE_IN_PROGRESS, m.id));
      m.joining = resolve;
      if (g.state !== "PreparingRebalance") this.#prepare(g);
      this.#maybeComplete(g);
    });
  }

  /** SyncGroup: the leader's assignments in, each member's own out. */
  sync(
    group: string,
    generation: number,
    memberId: string,
    assignments: readonly { readonly memberId: string; readonly assignment: Uint8Array }[],
  ): Promise<{ error: number; assignment: Uint8Array }> {
    const g = this.#groups.get(group);
    const m = g?.members.get(memberId);
    const fail = (error: number) => Promise.resolve({ error, assignment: new Uint8Array() });
    if (!g || !m) return fail(UNKNOWN_MEMBER_ID);
    if (g.state === "PreparingRebalance") return fail(REBALANCE_IN_PROGRESS);
    if (generation !== g.generation) return fail(ILLEGAL_GENERATION);
    m.lastSeen = Date.now();
    if (g.state === "Stable") return Promise.resolve({ error: 0, assignment: m.assignment });
    return new Promise((resolve) => {
      m.syncing = resolve;
      if (memberId !== g.leader) return;
      const given = new Map(assignments.map((a) => [a.memberId, a.assignment]));
      g.state = "Stable";
      for (const each of g.members.values()) {
        each.assignment = given.get(each.id) ?? new Uint8Array();
        each.syncing?.({ error: 0, assignment: each.assignment });
        each.syncing = undefined;
      }
    });
  }

  /** Heartbeat: keeps the session; says when the member must rejoin. */
  heartbeat(group: string, generation: number, memberId: string): number {
    const g = this.#groups.get(group);
    const m = g?.members.get(memberId);
    if (!g || !m) return UNKNOWN_MEMBER_ID;
    m.lastSeen = Date.now();
    if (g.state === "PreparingRebalance") return REBALANCE_IN_PROGRESS;
    if (generation !== g.generation) return ILLEGAL_GENERATION;
    return 0;
  }

  /** LeaveGroup: the member goes, the others rebalance. */
  leave(group: string, memberId: string): number {
    const g = this.#groups.get(group);
    const m = g?.members.get(memberId);
    if (!g || !m) return UNKNOWN_MEMBER_ID;
    this.#remove(g, m);
    return 0;
  }

  /** OffsetCommit for one group: 0, or the error every partition of the request gets. */
  commitCheck(group: string, generation: number, memberId: string): number {
    // Generation -1: a client committing outside group management.
    if (generation < 0) return 0;
    const g = this.#groups.get(group);
    if (!g || !g.members.has(memberId)) return UNKNOWN_MEMBER_ID;
    if (g.state === "CompletingRebalance") return REBALANCE_IN_PROGRESS;
    if (generation !== g.generation) return ILLEGAL_GENERATION;
    return 0;
  }

  /** Stores a committed offset. */
  commit(
    group: string,
    topic: string,
    partition: number,
    offset: bigint,
    metadata: string | null,
  ): void {
    this.#group(group).offsets.set(`${topic}\u0000${partition}`, { offset, metadata });
  }

  /** The committed offset of a partition, if any. */
  committed(
    group: string,
    topic: string,
    partition: number,
  ): { offset: bigint; metadata: string | null } | undefined {
    return this.#groups.get(group)?.offsets.get(`${topic}\u0000${partition}`);
  }

  /** The group's generation and member count (for tests). */
  describe(group: string): { generation: number; members: number; state: string } {
    const g = this.#groups.get(group);
    return {
      generation: g?.generation ?? 0,
      members: g?.members.size ?? 0,
      state: g?.state ?? "Dead",
    };
  }

  #prepare(g: Group): void {
    g.state = "PreparingRebalance";
    // Members waiting on a sync of the generation being replaced must rejoin.
    for (const m of g.members.values()) {
      m.syncing?.({ error: REBALANCE_IN_PROGRESS, assignment: new Uint8Array() });
      m.syncing = undefined;
    }
    clearTimeout(g.timer);
    const wait = Math.max(0, ...[...g.members.values()].map((m) => m.rebalanceTimeoutMs));
    g.timer = setTimeout(() => this.#complete(g), wait);
  }

  #maybeComplete(g: Group): void {
    if ([...g.members.values()].every((m) => m.joining)) this.#complete(g);
  }

  /** Forms the next generation from the members that rejoined; the others are dropped. */
  #complete(g: Group): void {
    clearTimeout(g.timer);
    g.timer = undefined;
    for (const m of [...g.members.values()]) if (!m.joining) g.members.delete(m.id);
    if (g.members.size === 0) {
      g.state = "Empty";
      g.leader = "";
      return;
    }
    const members = [...g.members.values()];
    g.generation++;
    if (!g.members.has(g.leader)) g.leader = members[0].id;
    const leader = g.members.get(g.leader)!;
    g.protocol =
      leader.protocols.find((p) => members.every((m) => m.protocols.some((q) => q.name === p.name)))
        ?.name ?? leader.protocols[0]?.name ?? "";
    g.state = "CompletingRebalance";
    const list = members.map((m) => ({
      id: m.id,
      metadata: m.protocols.find((p) => p.name === g.protocol)?.metadata ?? new Uint8Array(),
    }));
    for (const m of members) {
      const answer = m.joining!;
      m.joining = undefined;
      answer({
        error: 0,
        generation: g.generation,
        protocol: g.protocol,
        leader: g.leader,
        memberId: m.id,
        members: m.id === g.leader ? list : [],
      });
    }
  }

  #remove(g: Group, m: Member): void {
    g.members.delete(m.id);
    this.#interrupt(m);
    if (g.leader === m.id) g.leader = "";
    if (g.members.size === 0) {
      clearTimeout(g.timer);
      g.state = "Empty";
      return;
    }
    if (g.state !== "PreparingRebalance") this.#prepare(g);
    this.#maybeComplete(g);
  }

  #interrupt(m: Member): void {
    m.joining?.(failedJoin(UNKNOWN_MEMBER_ID, m.id));
    m.joining = undefined;
    m.syncing?.({ error: UNKNOWN_MEMBER_ID, assignment: new Uint8Array() });
    m.syncing = undefined;
  }

  #expire(): void {
    const now = Date.now();
    for (const g of this.#groups.values()) {
      for (const m of [...g.members.values()]) {
        // A member waiting in a join is alive: its connection holds the request open.
        if (!m.joining && now - m.lastSeen > m.sessionTimeoutMs) this.#remove(g, m);
      }
    }
  }
}

function failedJoin(error: number, memberId = ""): JoinResult {
  return { error, generation: -1, protocol: "", leader: "", memberId, members: [] };
}
