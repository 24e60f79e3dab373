import assert from "node:assert/strict";
import { type AckChannel, AckWindow } from "./_acks.ts";

/** A channel that records the frames it was asked to send. */
function recordingChannel(): AckChannel & { frames: string[] } {
  const frames: string[] = [];
  return {
    frames,
    ack: (m, allUpTo) => void frames.push(`ack ${m.fields.deliveryTag}${allUpTo ? " +" : ""}`),
    nack: (m, allUpTo, requeue) =>
      void frames.push(
        `nack ${m.fields.deliveryTag}${allUpTo ? " +" : ""}${requeue ? " requeue" : ""}`,
      ),
  };
}

Deno.test("acks asked for in one tick go as one multiple ack up to the last", async () => {
  const ch = recordingChannel();
  const window = new AckWindow(ch);
  for (let tag = 1; tag <= 4; tag++) window.received(tag);
  await Promise.all([window.ack(2), window.ack(1), window.ack(4), window.ack(3)]);
  assert.deepEqual(ch.frames, ["ack 4 +"]);
});

Deno.test("an ack never covers a delivery still in flight", async () => {
  const ch = recordingChannel();
  const window = new AckWindow(ch);
  for (let tag = 1; tag <= 5; tag++) window.received(tag);
  // 3 is still with the engine: 1–2 go together, 4 and 5 each alone.
  await Promise.all([window.ack(1), window.ack(2), window.ack(4), window.ack(5)]);
  assert.deepEqual(ch.frames, ["ack 2 +", "ack 4", "ack 5"]);
  await window.ack(3);
  assert.deepEqual(ch.frames, ["ack 2 +", "ack 4", "ack 5", "ack 3"]);
});

Deno.test("a requeue goes at once and a later run acks over its settled tag", async () => {
  const ch = recordingChannel();
  const window = new AckWindow(ch);
  for (let tag = 1; tag <= 3; tag++) window.received(tag);
  window.requeue(2);
  assert.deepEqual(ch.frames, ["nack 2 requeue"]);
  await Promise.all([window.ack(1), window.ack(3)]);
  assert.deepEqual(ch.frames, ["nack 2 requeue", "ack 3 +"]);
});

Deno.test("a single ack is not sent as multiple", async () => {
  const ch = recordingChannel();
  const window = new AckWindow(ch);
  window.received(7);
  await window.ack(7);
  assert.deepEqual(ch.frames, ["ack 7"]);
});

Deno.test("an ack the closed channel refuses rejects every delivery it covered", async () => {
  const window = new AckWindow({
    ack: () => {
      throw new Error("Channel closed");
    },
    nack: () => {},
  });
  window.received(1);
  window.received(2);
  const first = window.ack(1);
  const second = window.ack(2);
  await assert.rejects(first, /Channel closed/);
  await assert.rejects(second, /Channel closed/);
});

Deno.test("acking a delivery the window does not hold is refused", async () => {
  const window = new AckWindow(recordingChannel());
  await assert.rejects(window.ack(9), /not unsettled/);
});
