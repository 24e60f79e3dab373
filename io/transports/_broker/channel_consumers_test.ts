import assert from "node:assert/strict";
import { createLogger } from "../../../engine/core/log.ts";
import type {
  BoundChannel,
  ChannelDeclaration,
  TransportContext,
} from "../../../engine/core/transport.ts";
import {
  ChannelConsumers,
  type ChannelConsumersOptions,
  type RunningConsumer,
  startConsumer,
} from "./channel_consumers.ts";

/** A context whose bound channels the test sets, logging JSON lines into `lines`. */
function contextOf(bound: { channels: BoundChannel[] }, lines: string[] = []): TransportContext {
  return {
    channels: () => bound.channels,
    deliver: () => Promise.reject(new Error("no delivery in these tests")),
    http: { add: () => {} },
    logger: createLogger("test", { write: (line) => lines.push(line) }),
    resolveSecret: (reference) => Promise.resolve(reference),
    payloadCapBytes: 1_024,
    ackHoldMs: 1_000,
  };
}

function channelOf(name: string, options: Record<string, unknown> = {}): BoundChannel {
  const declaration: ChannelDeclaration = {
    name,
    transport: "test",
    bind: `test://${name}`,
    options,
  };
  return { tenant: "t", deploymentId: "d", declaration, ackMode: "on-persist" };
}

/** Consumers of `bound`'s channels, a pass every 5 ms. */
function consumersOf(
  bound: { channels: BoundChannel[] },
  o: Pick<ChannelConsumersOptions, "open" | "identity"> & { lines?: string[] },
): ChannelConsumers {
  const { lines, ...rest } = o;
  return new ChannelConsumers({
    context: contextOf(bound, lines),
    transport: "test",
    intervalMs: 5,
    ...rest,
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !check(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(check(), "condition not reached");
}

/** Records opens and stops as `open a` / `stop a`, the channel name plus its `v` option. */
function recorder(events: string[]) {
  return (channel: BoundChannel): RunningConsumer => {
    const label = `${channel.declaration.name}${channel.declaration.options?.["v"] ?? ""}`;
    events.push(`open ${label}`);
    return {
      stop: () => {
        events.push(`stop ${label}`);
        return Promise.resolve();
      },
    };
  };
}

Deno.test("consumers follow channels appearing, disappearing and changing", async () => {
  const bound = { channels: [channelOf("a")] };
  const events: string[] = [];
  const consumers = consumersOf(bound, {
    open: recorder(events),
  });
  try {
    await until(() => events.length === 1);
    assert.deepEqual(events, ["open a"]);

    bound.channels = [channelOf("a"), channelOf("b")];
    await until(() => events.length === 2);
    assert.deepEqual(events, ["open a", "open b"]);

    bound.channels = [channelOf("b", { v: 2 })];
    await until(() => events.length === 5);
    assert.deepEqual(events.slice(2).sort(), ["open b2", "stop a", "stop b"]);
    // A changed channel's old consumer stops before its new one starts.
    assert.ok(events.indexOf("stop b") < events.indexOf("open b2"));

    // An unchanged list is left alone, a redeploy of the same declaration too.
    bound.channels = [{ ...channelOf("b", { v: 2 }), deploymentId: "d2" }];
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(events.length, 5);
  } finally {
    await consumers.stop();
  }
  assert.deepEqual(events.slice(5), ["stop b2"]);
});

Deno.test("a channel that cannot be consumed is reported once and asked again on every pass", async () => {
  const bound = { channels: [channelOf("broken")] };
  let opens = 0;
  let reports = 0;
  const consumers = consumersOf(bound, {
    open: (_channel, reportOnce) => {
      opens++;
      reportOnce(() => reports++);
      return undefined;
    },
  });
  await until(() => opens >= 3);
  await consumers.stop();
  assert.equal(reports, 1);
});

Deno.test("the identity decides what restarts a consumer", async () => {
  const bound = { channels: [channelOf("a")] };
  const events: string[] = [];
  const consumers = consumersOf(bound, {
    identity: (channel) => channel.deploymentId,
    open: recorder(events),
  });
  await until(() => events.length === 1);
  bound.channels = [{ ...channelOf("a"), deploymentId: "d2" }];
  await until(() => events.length === 3);
  await consumers.stop();
  assert.deepEqual(events, ["open a", "stop a", "open a", "stop a"]);
});

Deno.test("stop waits for the pass under way, then stops what it started", async () => {
  const bound = { channels: [channelOf("slow")] };
  const events: string[] = [];
  let release!: () => void;
  const opening = new Promise<void>((resolve) => release = resolve);
  let opens = 0;
  const consumers = consumersOf(bound, {
    open: async (channel) => {
      opens++;
      await opening;
      return recorder(events)(channel);
    },
  });
  await until(() => opens === 1);
  let stopped = false;
  const stopping = consumers.stop().then(() => stopped = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(stopped, false);
  release();
  await stopping;
  assert.deepEqual(events, ["open slow", "stop slow"]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(opens, 1);
});

Deno.test("a pass that fails is logged and the next pass tries again", async () => {
  const bound = { channels: [channelOf("a")] };
  const lines: string[] = [];
  const events: string[] = [];
  let failures = 0;
  const consumers = consumersOf(bound, {
    lines,
    open: (channel) => {
      if (failures++ === 0) throw new Error("boom");
      return recorder(events)(channel);
    },
  });
  await until(() => events.length === 1);
  await consumers.stop();
  assert.equal(lines.length, 1);
  assert.match(lines[0], /test: could not follow the active channels/);
  assert.match(lines[0], /SUTRA\.RUNTIME\.UNEXPECTED/);
  assert.match(lines[0], /boom/);
});

Deno.test("startConsumer starts a plain channel at once and a singleton behind its lease", async () => {
  const events: string[] = [];
  const consumer = (label: string) => ({
    start: () => void events.push(`start ${label}`),
    stop: () => {
      events.push(`stop ${label}`);
      return Promise.resolve();
    },
  });
  const roles: string[] = [];
  let onChange!: (held: boolean) => void;
  const context: TransportContext = {
    ...contextOf({ channels: [] }),
    lease: (role) => {
      roles.push(role);
      let held = false;
      return {
        held: () => held,
        onChange: (listener) => {
          onChange = (now) => listener(held = now);
          return () => {};
        },
        release: () => {
          events.push("release");
          return Promise.resolve();
        },
      };
    },
  };
  const plain = startConsumer({
    context,
    channel: channelOf("p"),
    transport: "test",
    consumer: consumer("p"),
  });
  const single = startConsumer({
    context,
    channel: { ...channelOf("s"), declaration: { ...channelOf("s").declaration, singleton: true } },
    transport: "test",
    consumer: consumer("s"),
  });
  assert.deepEqual(events, ["start p"]);
  assert.deepEqual(roles, ["transport/test/t/s"]);
  onChange(true);
  assert.deepEqual(events, ["start p", "start s"]);
  await plain.stop();
  await single.stop();
  assert.deepEqual(events, ["start p", "start s", "stop p", "release", "stop s"]);
});
