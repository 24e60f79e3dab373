/**
 * Sends one `TransferRequest` to the money-transfer queue and prints the
 * answer the engine publishes to its reply queue.
 *
 * ```sh
 * deno run -q -P=test examples/money-transfer/send.ts alice bob 25.00
 * ```
 *
 * The broker is `SUTRA_RABBITMQ_URL` (default the local guest account).
 *
 * @module
 */
// @ts-types="@types/amqplib"
import amqp from "amqplib";
import { Buffer } from "node:buffer";

const [from = "alice", to = "bob", amount = "25.00"] = Deno.args;
const url = Deno.env.get("SUTRA_RABBITMQ_URL") ?? "amqp://guest:guest@127.0.0.1:5672";
const xml = `<TransferRequest><FromAccount>${from}</FromAccount><ToAccount>${to}</ToAccount>` +
  `<Amount>${amount}</Amount></TransferRequest>`;

const connection = await amqp.connect(url);
try {
  const channel = await connection.createConfirmChannel();
  await channel.assertQueue("money-transfer.requests", { durable: true });
  const { queue: replyTo } = await channel.assertQueue("", { exclusive: true });
  const correlationId = crypto.randomUUID();
  const answer = new Promise<string>((resolve) => {
    channel.consume(replyTo, (m) => {
      if (m?.properties.correlationId === correlationId) resolve(m.content.toString());
    }, { noAck: true });
  });
  channel.sendToQueue("money-transfer.requests", Buffer.from(xml), {
    contentType: "application/xml",
    messageId: correlationId,
    correlationId,
    replyTo,
    persistent: true,
  });
  await channel.waitForConfirms();
  const timeout = setTimeout(() => {
    console.error("no answer within 30 s");
    Deno.exit(1);
  }, 30_000);
  console.log(await answer);
  clearTimeout(timeout);
} finally {
  await connection.close();
}
