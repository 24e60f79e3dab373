/**
 * The Pub/Sub test double (tests/support/pubsub_server/) driven by the real
 * `@google-cloud/pubsub` client: the semantics the transport's tests lean
 * on — acks, nacks and expired leases redelivering, delivery attempts and
 * dead-letter forwarding, ordering keys one at a time — hold on it.
 */
import assert from "node:assert/strict";
import { Duration, type Message } from "@google-cloud/pubsub";
import {
  externalEmulator,
  openPubSub,
  PubSubPeer,
  type PubSubTarget,
  TEST_PROJECT,
  uniqueName,
} from "../support/pubsub_server/mod.ts";

async function withPeer(run: (peer: PubSubPeer, target: PubSubTarget) => Promise<void>) {
  const target = await openPubSub();
  const peer = new PubSubPeer(target);
  try {
    await run(peer, target);
  } finally {
    await peer.close();
    await target.close();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
}

Deno.test("pubsub double: published messages arrive with their attributes and are acked", async () => {
  await withPeer(async (peer) => {
    const t = uniqueName("t");
    await peer.topics(t);
    await peer.subscription(`${t}-s`, t);
    const id = await peer.publish(t, { a: 1 }, { kind: "x" });
    const [got] = await peer.take(`${t}-s`, 1);
    assert.equal(got.id, id);
    assert.deepEqual(JSON.parse(got.body), { a: 1 });
    assert.equal(got.attributes.kind, "x");
    await until(() => peer.stats(`${t}-s`).acked === 1, "the ack arrived");
    assert.equal(peer.stats(`${t}-s`).outstanding, 0);
    // Names are checked as the service checks them.
    await assert.rejects(peer.client.createTopic("1-bad"), /Invalid resource name/);
    await assert.rejects(peer.client.createTopic(t), /already exists/i);
  });
});

Deno.test("pubsub double: nacks redeliver with attempts, then the dead-letter topic takes it", async () => {
  await withPeer(async (peer) => {
    const t = uniqueName("dl");
    await peer.topics(t, `${t}-dlt`);
    await peer.subscription(`${t}-dlt-s`, `${t}-dlt`);
    await peer.client.topic(t).createSubscription(`${t}-s`, {
      deadLetterPolicy: {
        deadLetterTopic: `projects/${TEST_PROJECT}/topics/${t}-dlt`,
        maxDeliveryAttempts: 5,
      },
    });
    const attempts: number[] = [];
    const sub = peer.client.subscription(`${t}-s`);
    sub.on("message", (m: Message) => {
      attempts.push(m.deliveryAttempt);
      m.nack();
    });
    try {
      await peer.publish(t, "poison", { k: "v" });
      const [dead] = await peer.take(`${t}-dlt-s`, 1);
      assert.deepEqual(attempts, [1, 2, 3, 4, 5]);
      assert.equal(dead.body, "poison");
      assert.equal(dead.attributes.k, "v");
      assert.equal(dead.attributes.CloudPubSubDeadLetterSourceDeliveryCount, "5");
      assert.equal(dead.attributes.CloudPubSubDeadLetterSourceSubscription, `${t}-s`);
    } finally {
      await sub.close();
    }
  });
});

Deno.test({
  name: "pubsub double: an expired lease is delivered again under a new ack id",
  ignore: externalEmulator(),
}, async () => {
  const target = await openPubSub();
  const double = target.double!;
  const peer = new PubSubPeer(target);
  const name = uniqueName("exp");
  const seen: string[] = [];
  await peer.topics(name);
  await peer.subscription(`${name}-s`, name);
  const sub = peer.client.subscription(`${name}-s`, {
    minAckDeadline: Duration.from({ seconds: 10 }),
    maxAckDeadline: Duration.from({ seconds: 10 }),
  });
  const held: Message[] = [];
  sub.on("message", (m: Message) => {
    seen.push(m.ackId);
    held.push(m);
  });
  try {
    await peer.publish(name, "slow");
    await until(() => seen.length === 1, "first delivery");
    assert.equal(
      double.state.expire(`projects/${TEST_PROJECT}/subscriptions/${name}-s`),
      1,
    );
    await until(() => seen.length === 2, "redelivery");
    assert.notEqual(seen[0], seen[1]);
    // The stale ack id is ignored; the current one settles the message.
    held[0].ack();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(peer.stats(`${name}-s`).outstanding, 1);
    held[1].ack();
    await until(() => peer.stats(`${name}-s`).outstanding === 0, "acked");
    assert.equal(peer.stats(`${name}-s`).acked, 1);
  } finally {
    await sub.close();
    await peer.close();
    await target.close();
  }
});

Deno.test("pubsub double: one message per ordering key is out at a time, oldest first", async () => {
  await withPeer(async (peer) => {
    const t = uniqueName("ord");
    await peer.topics(t);
    await peer.client.topic(t).createSubscription(`${t}-s`, { enableMessageOrdering: true });
    for (let i = 0; i < 4; i++) {
      await peer.publish(t, `a${i}`, {}, "a");
      await peer.publish(t, `b${i}`, {}, "b");
    }
    const order: string[] = [];
    let out = 0;
    let maxOut = 0;
    const sub = peer.client.subscription(`${t}-s`);
    sub.on("message", (m: Message) => {
      out++;
      maxOut = Math.max(maxOut, out);
      order.push(m.data.toString());
      // The first delivery of a0 is nacked: it must come back before a1.
      if (m.data.toString() === "a0" && m.deliveryAttempt <= 1 && !order.includes("a0!")) {
        order.push("a0!");
        out--;
        m.nack();
        return;
      }
      setTimeout(() => {
        out--;
        m.ack();
      }, 5);
    });
    try {
      await until(() => order.filter((x) => !x.endsWith("!")).length === 9, "all delivered");
      const of = (k: string) => order.filter((x) => x.startsWith(k) && !x.endsWith("!"));
      assert.deepEqual(of("a"), ["a0", "a0", "a1", "a2", "a3"]);
      assert.deepEqual(of("b"), ["b0", "b1", "b2", "b3"]);
      assert.ok(maxOut <= 2, `at most one per key out, saw ${maxOut}`);
    } finally {
      await sub.close();
    }
  });
});
