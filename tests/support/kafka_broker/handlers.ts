/**
 * The request handlers of the test broker: one function per API key, each
 * decoding the one request version the broker advertises and encoding the
 * matching response body. The versions are the ones `npm:kafkajs` 2.2.4
 * settles on when offered these maxima (it takes the lower of its own
 * highest and the broker's).
 *
 * @module
 */
import { GroupCoordinator } from "./group_coordinator.ts";
import type { Log } from "./log.ts";
import { BatchError, decodeBatches, encodeBatch, type StoredRecord } from "./record_batch.ts";
import { saslAuthenticate, type SaslConnection, saslHandshake } from "./sasl.ts";
import { type Reader, Writer } from "./wire.ts";

/** UNKNOWN_TOPIC_OR_PARTITION. */
const UNKNOWN_TOPIC_OR_PARTITION = 3;
/** OFFSET_OUT_OF_RANGE. */
const OFFSET_OUT_OF_RANGE = 1;
/** TOPIC_ALREADY_EXISTS. */
const TOPIC_ALREADY_EXISTS = 36;
/** INVALID_PARTITIONS. */
const INVALID_PARTITIONS = 37;

/** The broker's node id (it is the only node). */
const NODE_ID = 0;

/** What the handlers share. */
export interface BrokerState {
  readonly log: Log;
  readonly groups: GroupCoordinator;
  readonly host: string;
  readonly port: number;
  /** Partitions of a topic created on first use. */
  readonly defaultPartitions: number;
  /** Create topics named in a Metadata request (Kafka's `auto.create.topics.enable`). */
  readonly autoCreateTopics: boolean;
  /** True once the broker stops: held fetches answer at once. */
  closing(): boolean;
  /** SASL PLAIN users (name → password); without them no login is asked for. */
  readonly users?: ReadonlyMap<string, string>;
}

/** A request header. */
export interface RequestHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string;
}

/** A handler: the response body, a promise of it, or null when no response is due (acks=0). */
type Handler = (
  r: Reader,
  s: BrokerState,
  h: RequestHeader,
  c: SaslConnection,
) => Uint8Array | null | Promise<Uint8Array | null>;

/** Each API: its key, the one version served, and its handler. */
export const APIS: ReadonlyMap<number, { version: number; handle: Handler }> = new Map([
  [0, { version: 3, handle: produce }],
  [1, { version: 4, handle: fetch }],
  [2, { version: 1, handle: listOffsets }],
  [3, { version: 1, handle: metadata }],
  [8, { version: 2, handle: offsetCommit }],
  [9, { version: 1, handle: offsetFetch }],
  [10, { version: 0, handle: findCoordinator }],
  [11, { version: 1, handle: joinGroup }],
  [12, { version: 0, handle: heartbeat }],
  [13, { version: 0, handle: leaveGroup }],
  [14, { version: 0, handle: syncGroup }],
  [17, { version: 1, handle: saslHandshake }],
  [18, { version: 2, handle: apiVersions }],
  [19, { version: 0, handle: createTopics }],
  [22, { version: 0, handle: initProducerId }],
  [36, { version: 1, handle: saslAuthenticate }],
]);

/** The ApiVersions answer in the version asked (0–2); a higher one gets UNSUPPORTED_VERSION in v0. */
function apiVersions(_r: Reader, _s: BrokerState, h: RequestHeader): Uint8Array {
  const w = new Writer().int16(h.apiVersion > 2 ? 35 : 0);
  w.array([...APIS], (w, [key, api]) => w.int16(key).int16(0).int16(api.version));
  if (h.apiVersion >= 1 && h.apiVersion <= 2) w.int32(0);
  return w.bytes;
}

function metadata(r: Reader, s: BrokerState): Uint8Array {
  const asked = r.array((r) => r.string() ?? "");
  const names = asked ?? [...s.log.topics.keys()];
  if (s.autoCreateTopics) { for (const t of names) s.log.create(t, s.defaultPartitions); }
  return new Writer()
    .array([NODE_ID], (w, id) => w.int32(id).string(s.host).int32(s.port).string(null))
    .int32(NODE_ID)
    .array(names, (w, name) => {
      const count = s.log.topics.get(name)?.length;
      w.int16(count === undefined ? UNKNOWN_TOPIC_OR_PARTITION : 0).string(name).boolean(false);
      w.array(indices(count ?? 0), (w, p) => {
        w.int16(0).int32(p).int32(NODE_ID).array([NODE_ID], (w, n) => w.int32(n));
        w.array([NODE_ID], (w, n) => w.int32(n));
      });
    })
    .bytes;
}

function produce(r: Reader, s: BrokerState): Uint8Array | null {
  r.string(); // transactional id: the test broker keeps no transactions
  const acks = r.int16();
  r.int32(); // timeout
  const topics = r.array((r) => ({
    name: r.string() ?? "",
    partitions: r.array((r) => ({ index: r.int32(), records: r.bytesField() })) ?? [],
  })) ?? [];
  const answers = topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ index: p.index, ...append(s, t.name, p) })),
  }));
  s.log.appended();
  if (acks === 0) return null;
  return new Writer()
    .array(
      answers,
      (w, t) =>
        w.string(t.name).array(
          t.partitions,
          (w, p) => w.int32(p.index).int16(p.error).int64(p.baseOffset).int64(-1n),
        ),
    )
    .int32(0)
    .bytes;
}

/** Appends one partition's record set; every batch of it or none. */
function append(
  s: BrokerState,
  topic: string,
  p: { index: number; records: Uint8Array | null },
): { error: number; baseOffset: bigint } {
  const partition = s.log.partition(topic, p.index);
  if (!partition) return { error: UNKNOWN_TOPIC_OR_PARTITION, baseOffset: -1n };
  let batches;
  try {
    batches = decodeBatches(p.records ?? new Uint8Array());
  } catch (error) {
    return { error: error instanceof BatchError ? error.code : 2, baseOffset: -1n };
  }
  let first = -1n;
  for (const batch of batches) {
    const appended = partition.append(batch);
    if ("error" in appended) return { error: appended.error, baseOffset: -1n };
    if (first < 0n) first = appended.baseOffset;
  }
  return { error: 0, baseOffset: first };
}

async function fetch(r: Reader, s: BrokerState): Promise<Uint8Array> {
  r.int32(); // replica id
  const maxWait = r.int32();
  r.int32(); // min bytes: any record is enough
  const maxBytes = r.int32();
  r.int8(); // isolation level: everything is committed at once here
  const topics = r.array((r) => ({
    name: r.string() ?? "",
    partitions: r.array((r) => ({ index: r.int32(), offset: r.int64(), maxBytes: r.int32() })) ??
      [],
  })) ?? [];
  const read = () =>
    topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => readPartition(s, t.name, p, maxBytes)),
    }));
  let answer = read();
  const deadline = Date.now() + maxWait;
  const empty = () => answer.every((t) => t.partitions.every((p) => p.records.length === 0));
  // Long poll: hold the fetch until something is appended or the wait is over.
  while (empty() && Date.now() < deadline && !s.closing()) {
    await s.log.waitForAppend(deadline - Date.now());
    answer = read();
  }
  return new Writer()
    .int32(0)
    .array(answer, (w, t) =>
      w.string(t.name).array(t.partitions, (w, p) => {
        w.int32(p.index).int16(p.error).int64(p.end).int64(p.end).int32(0);
        w.bytesField(p.records.length === 0 ? new Uint8Array() : encodeBatch(p.records));
      }))
    .bytes;
}

function readPartition(
  s: BrokerState,
  topic: string,
  p: { index: number; offset: bigint; maxBytes: number },
  maxBytes: number,
): { index: number; error: number; end: bigint; records: StoredRecord[] } {
  const partition = s.log.partition(topic, p.index);
  if (!partition) {
    return { index: p.index, error: UNKNOWN_TOPIC_OR_PARTITION, end: -1n, records: [] };
  }
  const end = partition.end;
  if (p.offset < 0n || p.offset > end) {
    return { index: p.index, error: OFFSET_OUT_OF_RANGE, end, records: [] };
  }
  return {
    index: p.index,
    error: 0,
    end,
    records: partition.read(p.offset, Math.min(p.maxBytes, maxBytes)),
  };
}

function listOffsets(r: Reader, s: BrokerState): Uint8Array {
  r.int32(); // replica id
  const topics = r.array((r) => ({
    name: r.string() ?? "",
    partitions: r.array((r) => ({ index: r.int32(), timestamp: r.int64() })) ?? [],
  })) ?? [];
  return new Writer()
    .array(topics, (w, t) =>
      w.string(t.name).array(t.partitions, (w, p) => {
        const partition = s.log.partition(t.name, p.index);
        if (!partition) {
          return w.int32(p.index).int16(UNKNOWN_TOPIC_OR_PARTITION).int64(-1n).int64(-1n);
        }
        w.int32(p.index).int16(0).int64(-1n).int64(
          offsetAt(partition.records, partition.end, p.timestamp),
        );
      }))
    .bytes;
}

/** -1: the end; -2: the start; otherwise the first record at or after the timestamp. */
function offsetAt(records: readonly StoredRecord[], end: bigint, timestamp: bigint): bigint {
  if (timestamp === -1n) return end;
  if (timestamp === -2n) return 0n;
  return records.find((x) => x.timestamp >= timestamp)?.offset ?? end;
}

function findCoordinator(r: Reader, s: BrokerState): Uint8Array {
  r.string(); // group id: this node coordinates every group
  return new Writer().int16(0).int32(NODE_ID).string(s.host).int32(s.port).bytes;
}

async function joinGroup(r: Reader, s: BrokerState, h: RequestHeader): Promise<Uint8Array> {
  const group = r.string() ?? "";
  const sessionTimeoutMs = r.int32();
  const rebalanceTimeoutMs = r.int32();
  const memberId = r.string() ?? "";
  r.string(); // protocol type ("consumer")
  const protocols =
    r.array((r) => ({ name: r.string() ?? "", metadata: r.bytesField() ?? new Uint8Array() })) ??
      [];
  const joined = await s.groups.join({
    group,
    memberId,
    clientId: h.clientId,
    sessionTimeoutMs,
    rebalanceTimeoutMs,
    protocols,
  });
  return new Writer()
    .int16(joined.error)
    .int32(joined.generation)
    .string(joined.protocol)
    .string(joined.leader)
    .string(joined.memberId)
    .array(joined.members, (w, m) => w.string(m.id).bytesField(m.metadata))
    .bytes;
}

async function syncGroup(r: Reader, s: BrokerState): Promise<Uint8Array> {
  const group = r.string() ?? "";
  const generation = r.int32();
  const memberId = r.string() ?? "";
  const assignments = r.array((r) => ({
    memberId: r.string() ?? "",
    assignment: r.bytesField() ?? new Uint8Array(),
  })) ?? [];
  const synced = await s.groups.sync(group, generation, memberId, assignments);
  return new Writer().int16(synced.error).bytesField(synced.assignment).bytes;
}

function heartbeat(r: Reader, s: BrokerState): Uint8Array {
  const group = r.string() ?? "";
  const generation = r.int32();
  const memberId = r.string() ?? "";
  return new Writer().int16(s.groups.heartbeat(group, generation, memberId)).bytes;
}

function leaveGroup(r: Reader, s: BrokerState): Uint8Array {
  const group = r.string() ?? "";
  return new Writer().int16(s.groups.leave(group, r.string() ?? "")).bytes;
}

function offsetCommit(r: Reader, s: BrokerState): Uint8Array {
  const group = r.string() ?? "";
  const generation = r.int32();
  const memberId = r.string() ?? "";
  r.int64(); // retention time
  const topics = r.array((r) => ({
    name: r.string() ?? "",
    partitions: r.array((r) => ({ index: r.int32(), offset: r.int64(), metadata: r.string() })) ??
      [],
  })) ?? [];
  const error = s.groups.commitCheck(group, generation, memberId);
  return new Writer()
    .array(topics, (w, t) =>
      w.string(t.name).array(t.partitions, (w, p) => {
        const known = s.log.partition(t.name, p.index) !== undefined;
        const code = error || (known ? 0 : UNKNOWN_TOPIC_OR_PARTITION);
        if (code === 0) s.groups.commit(group, t.name, p.index, p.offset, p.metadata);
        w.int32(p.index).int16(code);
      }))
    .bytes;
}

function offsetFetch(r: Reader, s: BrokerState): Uint8Array {
  const group = r.string() ?? "";
  const topics = r.array((r) => ({
    name: r.string() ?? "",
    partitions: r.array((r) => r.int32()) ?? [],
  })) ?? [];
  return new Writer()
    .array(topics, (w, t) =>
      w.string(t.name).array(t.partitions, (w, p) => {
        const c = s.groups.committed(group, t.name, p);
        w.int32(p).int64(c?.offset ?? -1n).string(c?.metadata ?? "").int16(0);
      }))
    .bytes;
}

function createTopics(r: Reader, s: BrokerState): Uint8Array {
  const topics = r.array((r) => {
    const name = r.string() ?? "";
    const partitions = r.int32();
    r.int16(); // replication factor: one node
    r.array((r) => [r.int32(), r.array((r) => r.int32())]);
    r.array((r) => [r.string(), r.string()]);
    return { name, partitions };
  }) ?? [];
  r.int32(); // timeout
  return new Writer()
    .array(topics, (w, t) => {
      const count = t.partitions === -1 ? s.defaultPartitions : t.partitions;
      const error = count < 1
        ? INVALID_PARTITIONS
        : s.log.create(t.name, count)
        ? 0
        : TOPIC_ALREADY_EXISTS;
      w.string(t.name).int16(error);
    })
    .bytes;
}

function initProducerId(r: Reader, s: BrokerState): Uint8Array {
  r.string(); // transactional id
  r.int32(); // transaction timeout
  return new Writer().int32(0).int16(0).int64(s.log.newProducerId()).int16(0).bytes;
}

function indices(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
